// What the benchmarks share: a throwaway sshd on 127.0.0.1 (the same set-up as test/helpers/sshd.ts, kept short:
// bench/ is plain JS), a HOME that uses it as the worker, project trees of a given size, and medians.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const RUNS = Number(process.env.BENCH_RUNS || 11);
export const tmp = (p) => mkdtempSync(join(tmpdir(), p));
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
export const must = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr}`);
};

/**
 * The worker README's Quick start adds: an ordinary user (this one, or as root `sparehand-worker`, made once as
 * test/helpers/sshd.ts makes it) whose HOME is a folder of its own and the folder each session starts in.
 */
function workerUser() {
  if (process.getuid?.() !== 0) return userInfo().username;
  const script =
    "id -u sparehand-worker >/dev/null 2>&1 || useradd --system --user-group --shell /bin/bash --home-dir / --no-create-home --password '*' sparehand-worker";
  execFileSync('flock', [join(tmpdir(), 'sparehand-worker-user.lock'), 'sh', '-c', script], { stdio: 'pipe' });
  return 'sparehand-worker';
}

export async function sshd() {
  const dir = tmp('sparehand-bench-sshd-');
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true });
  for (const k of ['host_key', 'user_key']) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, k)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'user_key.pub')));
  const user = workerUser();
  const home = tmp('sparehand-bench-worker-home-');
  chmodSync(home, 0o755);
  if (process.getuid?.() === 0) execFileSync('chown', [`${user}:`, home]);
  const port = await new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });
  const cfg = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${dir}/host_key`,
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    `PidFile ${dir}/pid`,
    'StrictModes no',
    'UsePAM no',
    'PasswordAuthentication no',
    'LogLevel ERROR',
    `SetEnv HOME=${home}`,
    'ForceCommand cd "$HOME" || exit 1; exec "$SHELL" -c "$SSH_ORIGINAL_COMMAND"',
  ].join('\n');
  writeFileSync(join(dir, 'cfg'), `${cfg}\n`);
  const proc = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'cfg')], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise((res) =>
      connect(port, '127.0.0.1')
        .once('connect', function () {
          this.destroy();
          res(true);
        })
        .once('error', () => res(false)),
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const hostKey = readFileSync(join(dir, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  return { dir, home, user, port, proc, identity: join(dir, 'user_key'), hostKey };
}

/** A git project with `files` small files in folders of `per` (100), and a `.gitignore` for dist/. */
export function tree(files, per = 100) {
  const dir = tmp('sparehand-bench-proj-');
  for (let i = 0; i < files; i++) {
    const sub = join(dir, 'src', `d${Math.floor(i / per)}`);
    if (i % per === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.js`), `export const v${i} = ${i};\n`);
  }
  writeFileSync(join(dir, '.gitignore'), 'dist/\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

/** A HOME whose config names the sshd as worker `bench`. */
export function benchHome(s, slots = 1) {
  const home = tmp('sparehand-bench-home-');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  appendFileSync(join(home, '.ssh', 'known_hosts'), `[127.0.0.1]:${s.port} ${s.hostKey}\n`);
  // Added as README says: no --dir (the copies go to ~/.cache/sparehand/work in the worker user's HOME).
  const worker = { name: 'bench', destination: `${s.user}@127.0.0.1`, port: s.port, identity: s.identity, slots };
  mkdirSync(join(home, '.config', 'sparehand'), { recursive: true });
  writeFileSync(join(home, '.config', 'sparehand', 'config.json'), JSON.stringify({ workers: [worker] }));
  return { home, worker, env: { PATH: process.env.PATH, HOME: home } };
}
