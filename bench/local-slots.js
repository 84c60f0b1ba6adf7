// Does sparehand keep this machine usable when heavy commands run here? A small interactive job (a fixed CPU loop,
// as an editor's or an agent's own work) is timed while eight heavy commands (CPU burners of a fixed amount of
// work) run, started directly, then started through `sparehand run --or-local` with no worker (local slots:
// the machine's default count, nice 10, idle I/O). Both against the same job on the idle machine, in the same run.
//   npm run build && node bench/local-slots.js
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, tmp } from './setup.js';

const BIN = fileURLToPath(new URL('../bin/sparehand.js', import.meta.url));
const HEAVY = 8;
const SAMPLES = Number(process.env.BENCH_RUNS || 7);
const loop = (n) => `my $i = 0; $i++ while $i < ${n};`;

/** Milliseconds `perl` takes for `n` turns of the loop. */
function job(n) {
  const t = performance.now();
  spawnSync('perl', ['-e', loop(n)]);
  return performance.now() - t;
}

/** Turns of the loop that take about `ms` on the idle machine. */
function calibrate(ms) {
  const n = 2_000_000;
  return Math.round((n * ms) / median([job(n), job(n), job(n)]));
}

/** Starts the eight heavy commands with `start`, times the interactive job while they run, waits for them. */
async function under(start, interactive) {
  const t0 = performance.now();
  const procs = Array.from({ length: HEAVY }, () => start());
  const done = Promise.all(procs.map((p) => new Promise((r) => p.once('close', r))));
  // Let them all start (sparehand's are queued by then).
  await new Promise((r) => setTimeout(r, 700));
  const times = [];
  for (let i = 0; i < SAMPLES; i++) times.push(job(interactive));
  await done;
  return { median: median(times), max: Math.max(...times), total: performance.now() - t0 };
}

const interactive = calibrate(100);
const heavyTurns = calibrate(1500);
const idle = median(Array.from({ length: SAMPLES }, () => job(interactive)));

const direct = await under(() => spawn('perl', ['-e', loop(heavyTurns)], { stdio: 'ignore' }), interactive);

const home = tmp('sparehand-bench-home-');
mkdirSync(join(home, '.config', 'sparehand'), { recursive: true });
const env = { PATH: process.env.PATH, HOME: home };
const cwd = tmp('sparehand-bench-proj-');
const through = await under(
  () => spawn(process.execPath, [BIN, 'run', '--or-local', '--', 'perl', '-e', loop(heavyTurns)], { stdio: 'ignore', env, cwd }),
  interactive,
);

const f = (ms) => `${Math.round(ms)} ms`;
console.log(`${availableParallelism()} cores; interactive job ${f(idle)} idle (median of ${SAMPLES}); ${HEAVY} heavy commands of ~1.5 s each`);
console.log(
  `  started directly:        interactive ${f(direct.median)} (max ${f(direct.max)}) = ${(direct.median / idle).toFixed(2)}x idle; all eight done in ${f(direct.total)}`,
);
console.log(
  `  through sparehand run:   interactive ${f(through.median)} (max ${f(through.max)}) = ${(through.median / idle).toFixed(2)}x idle; all eight done in ${f(through.total)}`,
);
console.log(`  ratio, through sparehand / directly: ${(through.median / direct.median).toFixed(2)}x`);
