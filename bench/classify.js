#!/usr/bin/env node
// Classifier speed, printed as ratios against baselines measured in the same run:
// (1) commands/s in-process over a mixed realistic corpus vs a trivial first-word loop;
// (2) what importing the classifier adds to a bare `node -e 0` start (unbundled dist/ and bundled like the hook).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `node bench/classify.js [DIST]`: another build's dist/ folder (e.g. main's) to compare on the same corpus.
const distIndex = join(process.argv[2] ? resolve(process.argv[2]) : join(root, 'dist'), 'classify/index.js');
const { classify, rewriteCommand } = await import(pathToFileURL(distIndex).href);

const CORPUS = [
  // heavy
  'npm test',
  'npm run build',
  'pnpm -r test',
  'yarn test',
  'cargo test --workspace',
  'go test ./...',
  'pytest -x -q',
  'npx vitest run src/foo.test.ts',
  'tsc --noEmit -p tsconfig.json',
  './gradlew build --no-daemon',
  'make -j8 test',
  // light and local
  'ls -la',
  'cat package.json',
  'git status',
  'git diff --stat HEAD~1',
  'grep -rn "TODO" src',
  'npm install',
  'rg -n foo lib',
  'sed -n 1,80p lib/cli.ts',
  'find . -name "*.ts" -not -path "./node_modules/*"',
  'npm run dev',
  'echo hello',
  'head -50 README.md',
  'git log --oneline -20',
  'python3 scripts/gen.py --out build/gen.json',
  // chains and shapes
  'cd /home/me/project && npm test 2>&1 | tail -50',
  'npm run build && npm test',
  'CI=1 npm test > /tmp/x.log 2>&1',
  'cd packages/web && pnpm build && pnpm test -- --reporter=dot',
  'timeout 600 cargo test --release 2>&1 | tee test.log',
  'bash -c "cd app && make check"',
  '(cd rust && cargo clippy -- -D warnings) 2>&1 | head -100',
  'git add -A && git commit -m "fix: handle the empty case" && git push',
  // split chains: test, then look
  'npm test && git diff',
  'cd packages/api && npm test && cd ../..',
  'cargo test 2>&1 | tail -30; git status --short',
  'npm run build && npm start',
  'timeout -vk 5 600 go test ./... && git diff --stat',
  // long ones
  `npx vitest run ${Array.from({ length: 40 }, (_, i) => `src/module-${i}/index.test.ts`).join(' ')}`,
  `python -c "${'print(1); '.repeat(60)}"`,
  `cd /home/me/project && ${Array.from({ length: 12 }, (_, i) => `echo step ${i}`).join(' && ')} && npm test`,
];

function throughput(fn, minMs = 1500) {
  let n = 0;
  let sink = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    for (const c of CORPUS) sink += fn(c);
    n += CORPUS.length;
    t = performance.now();
  }
  return { perSec: (n / (t - t0)) * 1000, sink };
}

// Warm up both, then measure.
throughput((c) => (classify(c).heavy ? 1 : 0), 300);
const base = throughput((c) => c.trim().split(/\s+/)[0].length, 1500);
const cls = throughput((c) => {
  const r = classify(c);
  return r.wrap ? rewriteCommand(r, 'sparehand').length : 0;
}, 2000);
const heavyCount = CORPUS.filter((c) => classify(c).heavy).length;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
// Spawns each variant `runs` times, interleaved so that load from other processes hits all alike; medians in ms.
function startMs(variants, runs = 21) {
  const times = variants.map(() => []);
  for (let i = 0; i < runs; i++) {
    variants.forEach((args, k) => {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed`);
      times[k].push(performance.now() - t0);
    });
  }
  return times.map(median);
}

const dir = mkdtempSync(join(tmpdir(), 'sparehand-bench-'));
const bundle = join(dir, 'classify.bundle.mjs');
const esbuild = await import('esbuild');
await esbuild.build({
  entryPoints: [join(root, 'lib/classify/index.ts')],
  outfile: bundle,
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
writeFileSync(join(dir, 'empty.mjs'), '');
writeFileSync(join(dir, 'use-dist.mjs'), `import { classify } from ${JSON.stringify(pathToFileURL(distIndex).href)};\nclassify('npm test');\n`);
writeFileSync(join(dir, 'use-bundle.mjs'), `import { classify } from ${JSON.stringify(pathToFileURL(bundle).href)};\nclassify('npm test');\n`);

startMs([['-e', '0']], 3);
const [bare, emptyModule, withDist, withBundle] = startMs([['-e', '0'], [join(dir, 'empty.mjs')], [join(dir, 'use-dist.mjs')], [join(dir, 'use-bundle.mjs')]]);
const f = (x, d = 0) => x.toFixed(d);
console.log(`corpus: ${CORPUS.length} commands (${heavyCount} heavy), node ${process.version}`);
console.log(`baseline (first word of each command): ${f(base.perSec)} commands/s`);
console.log(
  `classify + rewrite:                    ${f(cls.perSec)} commands/s (${f(1e6 / cls.perSec, 2)} µs each; ${f(base.perSec / cls.perSec, 1)}x the baseline's cost)`,
);
console.log(`target >= 100000 commands/s: ${cls.perSec >= 100000 ? 'met' : 'NOT met'}`);
const add = (x) => `${f(x, 1)} ms (+${f(x - bare, 1)} ms, ratio ${f(x / bare, 2)})`;
console.log('start, medians of 21 interleaved runs:');
console.log(`  node -e 0                          ${f(bare, 1)} ms`);
console.log(`  node empty.mjs (ESM file baseline) ${add(emptyModule)}`);
console.log(`  + import dist/classify (unbundled) ${add(withDist)}`);
console.log(`  + bundled, minified classifier     ${add(withBundle)}`);
