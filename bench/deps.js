// Dependencies installed once per worker, not once per slot (issue 42): on a worker with two slots, slot 0's first
// run installs the project's dependencies; a run that lands in slot 1 while slot 0 is busy takes them from slot 0.
// Its dependency time against slot 0's install, side by side in the same round: an npm project whose lock file names
// 40 packages (real tarballs made here with `npm pack`, installed by the real `npm ci`), and a Python project whose
// requirements name 20 local wheels (a venv and pip). Times are the summary line's `deps N.Ns`.
//   npm run build && node bench/deps.js [rounds]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchHome, median, sshd, tmp } from './setup.js';

const BIN = fileURLToPath(new URL('../bin/sparehand.js', import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 3);
const GOAL = 0.2;

/** 40 packages of 30 small modules each, packed; a project whose lock file names them all. */
function npmProject() {
  const dir = tmp('sparehand-bench-deps-npm-');
  const packs = join(dir, 'vendor');
  mkdirSync(packs);
  const deps = {};
  for (let i = 0; i < 40; i++) {
    const src = tmp('sparehand-bench-pkg-');
    writeFileSync(join(src, 'package.json'), JSON.stringify({ name: `pkg${i}`, version: '1.0.0', main: 'm0.js' }));
    for (let j = 0; j < 30; j++) writeFileSync(join(src, `m${j}.js`), `module.exports = ${JSON.stringify('x'.repeat(2000))};\n`);
    execFileSync('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: src, stdio: 'ignore' });
    deps[`pkg${i}`] = `file:vendor/pkg${i}-1.0.0.tgz`;
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-deps', version: '1.0.0', private: true, dependencies: deps }));
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--silent'], { cwd: dir, stdio: 'ignore' });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

/** 20 pure-Python wheels made with zipfile; a project whose requirements name them all. */
function pythonProject() {
  const dir = tmp('sparehand-bench-deps-py-');
  mkdirSync(join(dir, 'wheels'));
  const script = `
import sys, zipfile
d = sys.argv[1]
for i in range(20):
    name = f"mod{i}"; info = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(f"{d}/{name}-1.0-py3-none-any.whl", "w") as z:
        for j in range(30): z.writestr(f"{name}/m{j}.py", "X = " + repr("x" * 2000) + "\\n")
        z.writestr(f"{name}/__init__.py", "")
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: bench\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        z.writestr(f"{info}/RECORD", "")
`;
  execFileSync('python3', ['-c', script, join(dir, 'wheels')]);
  writeFileSync(join(dir, 'requirements.txt'), Array.from({ length: 20 }, (_, i) => `./wheels/mod${i}-1.0-py3-none-any.whl\n`).join(''));
  writeFileSync(join(dir, '.gitignore'), '.venv/\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

/** A `sparehand run` in the background; its stderr and exit status when it ends. */
function run(bench, cwd, command) {
  const p = spawn(process.execPath, [BIN, 'run', '--', command], { cwd, env: bench.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, stderr })));
}

const depsSeconds = (r) => {
  const m = /sparehand: ran on \S+: sync [\d.]+s, deps ([\d.]+)s/.exec(r.stderr);
  if (r.code !== 0 || !m) throw new Error(`a run failed (${r.code}):\n${r.stderr}`);
  return Number(m[1]);
};

/** One round: a fresh copy of the project on the worker; slot 0 installs and holds; slot 1's first run. */
async function round(bench, proj) {
  execFileSync(process.execPath, [BIN, 'worker', 'reset'], { cwd: proj, env: bench.env, stdio: 'ignore' });
  const mark = tmp('sparehand-bench-mark-');
  execFileSync('chmod', ['777', mark]);
  const hold = `touch ${mark}/held; i=0; while [ ! -e ${mark}/go ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done`;
  const first = run(bench, proj, hold);
  while (!existsSync(join(mark, 'held'))) await new Promise((r) => setTimeout(r, 50));
  const second = await run(bench, proj, 'true');
  writeFileSync(join(mark, 'go'), '');
  const firstDone = await first;
  if (!/copied from slot 0/.test(second.stderr)) throw new Error(`slot 1 did not copy slot 0's dependencies:\n${second.stderr}`);
  return { install: depsSeconds(firstDone), copy: depsSeconds(second) };
}

const s = await sshd();
const bench = benchHome(s, 2);
try {
  const projects = { 'npm, 40 packages': npmProject(), 'python, 20 wheels': pythonProject() };
  console.log(`dependencies on a second slot against the first slot's install, ${ROUNDS} rounds, medians (goal ≤ ${GOAL}×)`);
  for (const [label, proj] of Object.entries(projects)) {
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(bench, proj));
    const install = median(rounds.map((r) => r.install));
    const copy = median(rounds.map((r) => r.copy));
    const ratio = copy / install;
    console.log(
      `${label}: slot 0 installs in ${install.toFixed(1)}s, slot 1 takes them in ${copy.toFixed(1)}s: ${ratio.toFixed(2)}× ${ratio <= GOAL ? 'ok' : 'OVER GOAL'}`,
    );
  }
} finally {
  s.proc.kill();
}
