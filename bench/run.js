#!/usr/bin/env node
// Benchmarks `sparehand run` against bare ssh/rsync doing the same job with the same options, in the same run,
// on a real sshd on 127.0.0.1 (needs root, sshd and rsync: see .ci/run). Prints medians and ratios.
//   1. warm `sparehand run -- true` on a small project  vs  rsync up + ssh + rsync back (dry run), by hand
//   2. the same run  vs  one ssh round trip over the shared connection (`ssh … true`)
//   3. a no-change sync of a 20,000-file tree: sparehand's sync step  vs  plain `rsync -a --delete`
//   4. warm `sparehand run -- true` on that 20,000-file tree  vs  the same three steps by hand
//   5. the worker program's two walks around `true` on a 50,000-file tree  vs  `find` listing it twice
import { spawn } from 'node:child_process';
import { mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS, benchHome, median, must, sshd, time, tmp, tree } from './setup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'sparehand.js');
const { connectionFor, closeConnections } = await import(join(root, 'dist/remote/connection.js'));
const { sshArgs, rsyncRsh } = await import(join(root, 'dist/remote/ssh-args.js'));
const { rsyncUpArgs } = await import(join(root, 'dist/send/rsync-args.js'));
const { upFilterArgs, notBroughtBack, skipArgument, skipRules } = await import(join(root, 'dist/remote/sync-rules.js'));
const { BOOT, programPreamble } = await import(join(root, 'dist/remote/worker/program.js'));
const { jobFrame } = await import(join(root, 'dist/remote/job.js'));
const { frame } = await import(join(root, 'dist/remote/frames.js'));
const { remoteRoot } = await import(join(root, 'dist/run/project.js'));
const { syncUp } = await import(join(root, 'dist/send/rsync-up.js'));
const { rsyncHere, rsyncThere } = await import(join(root, 'dist/remote/rsync-found.js'));

const s = await sshd();
const { home, worker, env } = benchHome(s);
const c = { home, env };
const conn = connectionFor(c, worker);

/**
 * The same job by hand: rsync up, ssh, and a dry run of rsync back listing what differs (the way sparehand
 * found the command's changes before it had the tree watch), with sparehand's options.
 */
function byHand(proj, filters) {
  const dest = `${join(s.home, 'remote-hand')}/${proj.split('/').pop()}`;
  const up = filters
    ? rsyncUpArgs(worker, conn, {}, proj, dest).args
    : ['-a', '--delete', '-e', rsyncRsh(worker, conn), `--rsync-path=mkdir -p ${dest} && rsync`, `${proj}/`, `${worker.destination}:${dest}/`];
  const back = [
    '-a',
    '--delete-delay',
    '--protect-args',
    '--dry-run',
    '--out-format=%i|%M|%l|%n',
    '-e',
    rsyncRsh(worker, conn),
    ...upFilterArgs({}),
    `${worker.destination}:${dest}/`,
    `${proj}/`,
  ];
  return {
    up: () => must('rsync', up, { env }),
    run: () => must('ssh', sshArgs(worker, conn, `cd ${dest} && bash -c true`), { env }),
    back: () => must('rsync', back, { env }),
  };
}

function compare(label, a, b, target) {
  const ta = [];
  const tb = [];
  for (let i = 0; i < RUNS; i++) {
    ta.push(time(a));
    tb.push(time(b));
  }
  const ma = median(ta);
  const mb = median(tb);
  const ratio = ma / mb;
  const goal = typeof target === 'number' ? ` (target <= ${target}x)` : '';
  console.log(`${label}: sparehand ${ma.toFixed(0)} ms, bare ${mb.toFixed(0)} ms, ratio ${ratio.toFixed(2)}x${goal}`);
  return ratio;
}

async function compareAsync(label, a, b, target) {
  const ta = [];
  const tb = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    b();
    tb.push(performance.now() - t);
  }
  const ratio = median(ta) / median(tb);
  console.log(`${label}: sparehand ${median(ta).toFixed(0)} ms, bare ${median(tb).toFixed(0)} ms, ratio ${ratio.toFixed(2)}x (target <= ${target}x)`);
}

try {
  const small = tree(20);
  const sparehand = (proj) => () => must(process.execPath, [BIN, 'run', '--quiet', '--', 'true'], { env, cwd: proj });
  sparehand(small)(); // warm: connection, first copy
  const h1 = byHand(small, true);
  h1.up();
  compare('warm `run -- true` (20 files) vs the three bare steps', sparehand(small), () => (h1.up(), h1.run(), h1.back()), 0.8);
  compare('warm `run -- true` (20 files) vs one ssh round trip', sparehand(small), () => must('ssh', sshArgs(worker, conn, 'true'), { env }), 3);

  const big = tree(20_000);
  // sparehand's sync step as `run` does it (lib/send/rsync-up.ts, in this process) against plain
  // `rsync -a --delete` with the same ssh options: what sparehand's filters and way of calling rsync cost.
  const t = { worker, conn, config: {}, localRoot: big, remoteRoot: remoteRoot(worker, 'bench-20k', 0), env };
  const rsyncs = { here: await rsyncHere(c), there: await rsyncThere(c, worker, conn) };
  await syncUp(t, rsyncs);
  const plain = byHand(big, false);
  plain.up();
  await compareAsync('no-change sync, 20,000 files', () => syncUp(t, rsyncs), plain.up, 1.0);

  sparehand(big)();
  const h3 = byHand(big, true);
  h3.up();
  compare('warm `run -- true` (20,000 files) vs the three bare steps', sparehand(big), () => (h3.up(), h3.run(), h3.back()), 0.8);

  // The worker program as a run starts it (here: this machine is the worker), around `true`, on 50,000 files:
  // its walks before and after the command against `find` listing the same tree twice with the same facts.
  const wdir = tmp('sparehand-bench-worker-');
  mkdirSync(join(wdir, 'k'));
  const huge = join(wdir, 'k', '0');
  renameSync(tree(50_000), huge);
  const job = {
    mode: 'pipe',
    dir: wdir,
    key: 'k',
    slots: 4,
    folder: 0,
    record: 'bench',
    rel: '.',
    command: 'true',
    skip: skipArgument(skipRules(notBroughtBack({}))),
    watch: true,
    deps: [],
    venv: '',
    programs: [],
    env: {},
    gen: '',
    newgen: 'g',
  };
  const watchOnce = () =>
    new Promise((resolve, reject) => {
      const child = spawn('perl', ['-e', BOOT], { cwd: wdir, stdio: ['pipe', 'pipe', 'inherit'] });
      child.stdin.write(Buffer.concat([programPreamble(), jobFrame(job), frame('go'), frame('start')]));
      let out = Buffer.alloc(0);
      child.stdout.on('data', (d) => {
        out = Buffer.concat([out, d]);
        if (/(^|\n)end \d+\n\d+$/.test(out.subarray(-40).toString('latin1'))) child.stdin.end(frame('bye'));
      });
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the worker program exited ${code}`))));
    });
  await watchOnce(); // the first walk hashes every file; later ones reuse the hashes
  const find = () => must('find', ['.', '-printf', '%y %i %s %T@ %C@ %m %P\\0'], { cwd: huge });
  await compareAsync('worker program around `true`, 50,000 files (two walks)', watchOnce, async () => (find(), find()));
} finally {
  await closeConnections(c);
  s.proc.kill();
}
