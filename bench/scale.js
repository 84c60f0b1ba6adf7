#!/usr/bin/env node
// How a run's cost grows with the project (issue 28): for projects of 20, 10,000, 50,000 and 100,000 files, a cold
// `sparehand run -- true` (a new copy), a warm one (nothing changed) and one after a one-file edit, each against one
// ssh round trip over the shared connection measured in the same run. Medians; prints a table for docs/performance.md.
//   BENCH_SIZES=20,10000 node bench/scale.js      (BENCH_RUNS: how many runs a median takes, default 11)
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS, benchHome, median, must, sshd, time, tree } from './setup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'sparehand.js');
const { connectionFor, closeConnections } = await import(join(root, 'dist/remote/connection.js'));
const { sshArgs } = await import(join(root, 'dist/remote/ssh-args.js'));
const sizes = (process.env.BENCH_SIZES || '20,10000,50000,100000').split(',').map(Number);

const s = await sshd();
const { home, worker, env } = benchHome(s, 4);
const conn = connectionFor({ home, env }, worker);
const run = (proj) => {
  const r = spawnSync(process.execPath, [BIN, 'run', '--quiet', '--', 'true'], { env, cwd: proj, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`sparehand run failed (${r.status}): ${r.stderr}`);
};
const rtt = () => median(Array.from({ length: RUNS }, () => time(() => must('ssh', sshArgs(worker, conn, 'true'), { env }))));

try {
  run(tree(1)); // the shared connection, once
  const rows = [];
  for (const n of sizes) {
    const proj = tree(n);
    execFileSync('git', ['add', '-A'], { cwd: proj });
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'x'], { cwd: proj });
    const cold = time(() => run(proj));
    const warm = median(Array.from({ length: RUNS }, () => time(() => run(proj))));
    let i = 0;
    const edit = median(
      Array.from({ length: RUNS }, () => {
        writeFileSync(join(proj, 'src', 'd0', 'f0.js'), `export const v0 = ${i++};\n`);
        return time(() => run(proj));
      }),
    );
    const trip = rtt();
    rows.push({ n, cold, warm, edit, trip });
    console.error(`${n} files: cold ${cold.toFixed(0)} ms, warm ${warm.toFixed(0)} ms, one-file edit ${edit.toFixed(0)} ms, round trip ${trip.toFixed(0)} ms`);
  }
  const small = rows.find((r) => r.n === Math.min(...sizes));
  console.log('| project | cold run | warm `run -- true` | after a one-file edit | round trip |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    const x = (v) => `${(v / r.trip).toFixed(1)}× a round trip`;
    const vs = (v, base) => (r === small ? '' : `, ${(v / base).toFixed(2)}× the ${small.n}-file one`);
    console.log(
      `| ${r.n.toLocaleString('en')} files | ${(r.cold / 1000).toFixed(2)} s | ${r.warm.toFixed(0)} ms (${x(r.warm)}${vs(r.warm, small.warm)}) | ${r.edit.toFixed(0)} ms (${x(r.edit)}${vs(r.edit, small.warm)}) | ${r.trip.toFixed(0)} ms |`,
    );
  }
} finally {
  await closeConnections({ home, env });
  s.proc.kill();
}
