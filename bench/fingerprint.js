#!/usr/bin/env node
// What a warm run costs here before it sends anything (issue 28): the fingerprint of a project of BENCH_FILES files
// (default 100,000) taken by looking at every path, and brought up to date from the watcher's journal (lib/watch/)
// when nothing changed and after a one-file edit, against one `find` of the same tree (the walk in C) measured in the
// same rounds. In-process, interleaved, medians of BENCH_RUNS (default 11). Run after `npm run build`; Linux only.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS, median, tree } from './setup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { fingerprint, changedSince } = await import(join(root, 'dist/send/warm-send.js'));
const { keepWarm, takeWarm } = await import(join(root, 'dist/send/warm-kept.js'));
const files = Number(process.env.BENCH_FILES || 100_000);
const proj = tree(files);
execFileSync('git', ['add', '-A'], { cwd: proj });
execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'x'], { cwd: proj });
const env = { PATH: process.env.PATH, HOME: proj, SPAREHAND_WATCH: 'on' };
const scope = { keep: [], inputs: [] };
const keep = (fp) => {
  keepWarm(proj, 'bench', 'gen', fp, [], 0);
  return takeWarm(proj, 'bench');
};
const since = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

try {
  // The first fingerprint starts the watcher; once it is ready, one keeps its mark.
  let kept;
  for (let i = 0; i < 200 && !kept?.watch; i++) {
    kept = keep(await fingerprint(proj, env, {}, scope));
    if (!kept.watch) await new Promise((r) => setTimeout(r, 50));
  }
  if (!kept?.watch) throw new Error('no watcher answered: is this Linux on x86_64 or arm64, with perl?');
  const t = { find: [], walk: [], same: [], edit: [] };
  for (let i = 0; i < RUNS + 1; i++) {
    // (Its status is not looked at: the watcher's barrier files come and go while it runs.)
    const find = await since(() => spawnSync('find', [proj, '-newer', join(proj, '.gitignore'), '-print'], { stdio: 'ignore' }));
    const walk = await since(() => fingerprint(proj, { ...env, SPAREHAND_WATCH: 'off' }, {}, scope));
    const same = await since(async () => {
      const fp = await fingerprint(proj, env, {}, scope, kept);
      if (fp.looked !== 'watched' || fp.hash !== kept.hash) throw new Error('the watched fingerprint saw a change where there was none');
      kept = keep(fp);
    });
    writeFileSync(join(proj, 'src', 'd0', 'f0.js'), `export const v0 = ${i};\n`);
    const edit = await since(async () => {
      const fp = await fingerprint(proj, env, {}, scope, kept);
      if (fp.looked !== 'watched' || changedSince(kept, fp, proj)?.length !== 1) throw new Error('the watched fingerprint missed the edit');
      kept = keep(fp);
    });
    // The first round warms the caches.
    if (i === 0) continue;
    for (const [k, v] of Object.entries({ find, walk, same, edit })) t[k].push(v);
  }
  const base = median(t.find);
  const row = (name, xs) => `| ${name} | ${median(xs).toFixed(0)} ms | ${(median(xs) / base).toFixed(2)}× |`;
  console.log(`| ${files.toLocaleString('en')} files, median of ${RUNS} | time | against one \`find\` of the tree (${base.toFixed(0)} ms) |`);
  console.log('|---|---|---|');
  console.log(row('fingerprint, every path looked at', t.walk));
  console.log(row('fingerprint from the watcher, nothing changed', t.same));
  console.log(row('fingerprint from the watcher, one file edited', t.edit));
} finally {
  try {
    execFileSync('pkill', ['-f', `^sparehand-watch ${proj}$`]);
  } catch {
    /* none left */
  }
}
