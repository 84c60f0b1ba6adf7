#!/usr/bin/env node
// How a run's cost grows with the project (issue 28): for projects of 20, 10,000, 50,000 and 100,000 files, a cold
// `sparehand run -- true` (a new copy), a warm one (nothing changed) and one after a one-file edit, each against one
// ssh round trip over the shared connection measured in the same run. Medians; prints a table for docs/performance.md.
//   BENCH_SIZES=20,10000 node bench/scale.js      (BENCH_RUNS: how many runs a median takes, default 11)
// Issue 39: the layout too, as FOLDERSxFILES (files per folder) beside the flat sizes (folders of 100):
//   BENCH_LAYOUT=100x1000,10000x10 node bench/scale.js   (the 20-file project is always measured first, as the base)
// BENCH_BASE=DIR (another checkout, built) measures its sparehand too, run for run interleaved with this one's, each
// on a project of its own: before and after in the same run, under the same load.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS, benchHome, median, must, sshd, time, tree } from './setup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'sparehand.js');
const BASE = process.env.BENCH_BASE ? join(process.env.BENCH_BASE, 'bin', 'sparehand.js') : undefined;
const { connectionFor, closeConnections } = await import(join(root, 'dist/remote/connection.js'));
const { sshArgs } = await import(join(root, 'dist/remote/ssh-args.js'));
// Each project: { n: files, per: files per folder, label }.
const layout = (spec) => {
  const m = /^(\d+)x(\d+)$/.exec(spec);
  if (m)
    return {
      n: Number(m[1]) * Number(m[2]),
      per: Number(m[2]),
      label: `${Number(m[1]).toLocaleString('en')} folders × ${Number(m[2]).toLocaleString('en')} files`,
    };
  if (!/^\d+$/.test(spec)) throw new Error(`BENCH_LAYOUT/BENCH_SIZES: ${spec} is neither FOLDERSxFILES nor a number of files`);
  return { n: Number(spec), per: 100, label: `${Number(spec).toLocaleString('en')} files` };
};
const sizes = process.env.BENCH_LAYOUT
  ? ['20', ...process.env.BENCH_LAYOUT.split(',')].map(layout)
  : (process.env.BENCH_SIZES || '20,10000,50000,100000').split(',').map(layout);

const s = await sshd();
const { home, worker, env } = benchHome(s, 4);
const conn = connectionFor({ home, env }, worker);
// A HOME per build: two builds in one HOME would drop each other's compiled-code cache and kept config check on
// every run (each is stamped with its build), and both would be measured without them.
const baseHome = BASE ? benchHome(s, 4) : undefined;
const run = (proj, bin = BIN) => {
  const r = spawnSync(process.execPath, [bin, 'run', '--quiet', '--', 'true'], {
    env: bin === BIN ? env : baseHome?.env,
    cwd: proj,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`sparehand run failed (${r.status}): ${r.stderr}`);
};
const rtt = () => median(Array.from({ length: RUNS }, () => time(() => must('ssh', sshArgs(worker, conn, 'true'), { env }))));

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const startLoad = load();
console.error(`load at the start: ${startLoad}`);
try {
  run(tree(1)); // the shared connection, once
  if (BASE) run(tree(1), BASE);
  const rows = [];
  const measure = ({ n, per }, bins) => {
    const projs = bins.map(() => {
      const proj = tree(n, per);
      execFileSync('git', ['add', '-A'], { cwd: proj });
      execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'x'], { cwd: proj });
      return proj;
    });
    // Each step runs every checkout's sparehand in turn (interleaved: the same load for each).
    const each = (fn) => bins.map((bin, k) => fn(bin, projs[k], k));
    const cold = each((bin, proj) => time(() => run(proj, bin)));
    const warms = bins.map(() => []);
    const edits = bins.map(() => []);
    for (let r = 0; r < RUNS; r++) each((bin, proj, k) => warms[k].push(time(() => run(proj, bin))));
    for (let r = 0; r < RUNS; r++)
      each((bin, proj, k) => {
        writeFileSync(join(proj, 'src', 'd0', 'f0.js'), `export const v0 = ${r};\n`);
        edits[k].push(time(() => run(proj, bin)));
      });
    return bins.map((_, k) => ({ cold: cold[k], warm: median(warms[k]), edit: median(edits[k]) }));
  };
  const bins = BASE ? [BIN, BASE] : [BIN];
  const baseRows = [];
  for (const size of sizes) {
    const [here, base] = measure(size, bins);
    const trip = rtt();
    const { n, label } = size;
    rows.push({ n, label, ...here, trip });
    const line = (r) => `cold ${r.cold.toFixed(0)} ms, warm ${r.warm.toFixed(0)} ms, one-file edit ${r.edit.toFixed(0)} ms`;
    console.error(`${label}: ${line(here)}, round trip ${trip.toFixed(0)} ms${base ? `; BENCH_BASE: ${line(base)}` : ''}`);
    if (base) baseRows.push({ n, label, ...base, trip });
  }
  for (const [title, table] of BASE
    ? [
        ['this checkout', rows],
        ['BENCH_BASE', baseRows],
      ]
    : [['', rows]]) {
    if (title) console.log(`\n${title}:\n`);
    const small = table.find((r) => r.n === Math.min(...sizes.map((z) => z.n)));
    console.log('| project | cold run | warm `run -- true` | after a one-file edit | round trip |');
    console.log('|---|---|---|---|---|');
    for (const r of table) {
      const x = (v) => `${(v / r.trip).toFixed(1)}× a round trip`;
      const vs = (v, base) => (r === small ? '' : `, ${(v / base).toFixed(2)}× the ${small.n}-file one`);
      console.log(
        `| ${r.label} | ${(r.cold / 1000).toFixed(2)} s | ${r.warm.toFixed(0)} ms (${x(r.warm)}${vs(r.warm, small.warm)}) | ${r.edit.toFixed(0)} ms (${x(r.edit)}${vs(r.edit, small.warm)}) | ${r.trip.toFixed(0)} ms |`,
      );
    }
  }
  console.log(`\n(load average at the start and end: ${startLoad} → ${load()})`);
} finally {
  await closeConnections({ home, env });
  if (baseHome) await closeConnections(baseHome);
  s.proc.kill();
  // The watchers the runs started (lib/watch/) would stay an hour.
  spawnSync('pkill', ['-f', '^sparehand-watch /.*sparehand-bench-proj-']);
  // And the worker's watchers of its copies (lib/remote/worker/watch.pl), each by the pid it wrote: 20 minutes.
  const pids = spawnSync('find', [s.home, '-name', '*.watch.pid', '-exec', 'cat', '{}', ';'], { encoding: 'utf8' }).stdout;
  // (Only a pid that is still a watcher: one that ended may have been given to another process.)
  const isWatcher = (pid) => spawnSync('ps', ['-o', 'args=', '-p', pid], { encoding: 'utf8' }).stdout.trim() === 'sparehand-watch';
  for (const pid of pids.split(/\s+/).filter((p) => /^\d+$/.test(p) && isWatcher(p))) spawnSync('kill', [pid]);
}
