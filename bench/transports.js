#!/usr/bin/env node
// What each transport costs per run: warm `sparehand run -- true` on a small project over ssh (a real sshd on
// 127.0.0.1, shared connection up) and over exec (`podman exec -i` into a container run from a root folder built
// here, as test/helpers/container.ts does), and one bare round trip of each (`ssh … true`, `podman exec -i CTR true`).
// Needs root, sshd, rsync, podman (and runc where crun cannot run). Prints medians.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS, benchHome, median, must, sshd, time, tmp, tree } from './setup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'sparehand.js');
const { connectionFor, closeConnections } = await import(join(root, 'dist/remote/connection.js'));
const { sshArgs } = await import(join(root, 'dist/remote/ssh-args.js'));

/** A container from a root folder: the host's /usr and /etc read-only, /tmp shared, no network. */
function container() {
  const dir = tmp('sparehand-bench-rootfs-');
  for (const d of ['usr', 'etc', 'tmp', 'root', 'proc', 'dev', 'sys', 'run', 'var']) mkdirSync(join(dir, d));
  const binds = ['-v', '/usr:/usr:ro', '-v', '/etc:/etc:ro', '-v', '/tmp:/tmp'];
  for (const d of ['bin', 'sbin', 'lib', 'lib64']) {
    if (!existsSync(`/${d}`)) continue;
    if (lstatSync(`/${d}`).isSymbolicLink()) symlinkSync(readlinkSync(`/${d}`), join(dir, d));
    else binds.push('-v', `/${d}:/${d}:ro`);
  }
  const name = `sparehand-bench-${process.pid}`;
  const runc = spawnSync('sh', ['-c', 'command -v runc']).status === 0 ? ['--runtime', 'runc'] : [];
  execFileSync(
    'podman',
    [
      ...runc,
      'run',
      '-d',
      '--network',
      'none',
      '--ulimit',
      'nofile=4096:4096',
      '--ulimit',
      'nproc=4096:4096',
      '--name',
      name,
      ...binds,
      '--rootfs',
      dir,
      'sleep',
      'infinity',
    ],
    { stdio: 'ignore' },
  );
  return name;
}

const s = await sshd();
const ssh = benchHome(s);
const ctr = container();
const exec = { home: tmp('sparehand-bench-home-') };
exec.env = { PATH: process.env.PATH, HOME: exec.home };
mkdirSync(join(exec.home, '.config', 'sparehand'), { recursive: true });
writeFileSync(
  join(exec.home, '.config', 'sparehand', 'config.json'),
  JSON.stringify({ workers: [{ name: 'bench', exec: ['podman', 'exec', '-i', ctr], dir: tmp('sparehand-bench-ctr-dir-') }] }),
);

try {
  const proj = tree(20);
  const run = (env) => () => must(process.execPath, [BIN, 'run', '--quiet', '--', 'true'], { env, cwd: proj });
  for (const env of [ssh.env, exec.env]) run(env)(); // warm: the shared connection, the copy, the records
  const conn = connectionFor({ home: ssh.home, env: ssh.env }, ssh.worker);
  const measure = (fn) => median(Array.from({ length: RUNS }, () => time(fn)));
  const rows = [
    ['warm `sparehand run -- true`, ssh', measure(run(ssh.env))],
    ['warm `sparehand run -- true`, exec (podman exec -i)', measure(run(exec.env))],
    ['one round trip, `ssh … true` (shared connection)', measure(() => must('ssh', sshArgs(ssh.worker, conn, 'true'), { env: ssh.env }))],
    ['one round trip, `podman exec -i CTR true`', measure(() => must('podman', ['exec', '-i', ctr, 'true']))],
  ];
  for (const [label, ms] of rows) console.log(`${label}: ${ms.toFixed(0)} ms`);
} finally {
  await closeConnections({ home: ssh.home, env: ssh.env });
  s.proc.kill();
  spawnSync('podman', ['rm', '-f', '-t', '0', ctr], { stdio: 'ignore' });
}
