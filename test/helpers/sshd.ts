// A real sshd on 127.0.0.1 with throwaway host and user keys, for worker tests. No fake ssh anywhere.
//
// By default it is the worker README's Quick start adds (`sparehand worker add box me@host`, no --dir): the sessions
// run as an ordinary user (this process's own user; as root, the user `sparehand-worker`, made once), whose HOME is
// a folder of its own and also the folder each session starts in, so the copies go to `~/.cache/sparehand/work`
// there. `asRoot` is the named exception: a worker that logs in as root (only when this process is root).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './context.js';

export interface Sshd {
  port: number;
  dir: string;
  /** `[127.0.0.1]:PORT <key>`: the line a known_hosts file needs. */
  knownHostsLine: string;
  /** Private key accepted by this sshd. */
  identity: string;
  /** The user the worker's sessions log in as, and the destination that names it (`user@127.0.0.1`). */
  user: string;
  destination: string;
  /** The worker user's HOME: the folder its sessions start in (as HOME names it: a link, with `homeLink`). */
  home: string;
  /** Where runs keep the project copies with no --dir: `~/.cache/sparehand/work` under `home`. */
  remoteDir: string;
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'sparehand-test', '-f', file]);
}

async function waitForPort(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`sshd exited: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`sshd did not listen on ${port}: ${log()}`);
}

export const isRoot = (): boolean => process.getuid?.() === 0;

/** The ordinary user test workers run as when this process is root: made once per machine (useradd, under a lock). */
export const WORKER_USER = 'sparehand-worker';

/** The ordinary user a test worker's sessions run as: this process's own, or (as root) WORKER_USER, made if need be. */
export function workerUser(): string {
  if (!isRoot()) return userInfo().username;
  try {
    execFileSync('id', ['-u', WORKER_USER], { stdio: 'ignore' });
  } catch {
    // Test files start at once: one useradd at a time (a second one finding /etc/passwd locked would fail).
    const script = `id -u ${WORKER_USER} >/dev/null 2>&1 || useradd --system --user-group --shell /bin/bash --home-dir / --no-create-home --password '*' ${WORKER_USER}`;
    execFileSync('flock', [join(tmpdir(), 'sparehand-worker-user.lock'), 'sh', '-c', script], { stdio: 'pipe' });
  }
  return WORKER_USER;
}

/** Makes `path` (and what is in it) the worker user's, when that is another user than this process's. */
export function giveToWorker(path: string, user = workerUser()): void {
  if (isRoot() && user !== 'root') execFileSync('chown', ['-R', `${user}:`, path]);
}

/** Runs `argv` as the worker user (for a test that acts on the worker as its owner would), returning its stdout. */
export function asWorker(argv: readonly string[], opts: { cwd?: string; user?: string } = {}): string {
  const user = opts.user ?? workerUser();
  const [program, ...args] = isRoot() && user !== 'root' ? ['setpriv', `--reuid=${user}`, `--regid=${user}`, '--clear-groups', '--', ...argv] : argv;
  return execFileSync(program as string, args, { cwd: opts.cwd, encoding: 'utf8' });
}

let terminals: boolean | undefined;

/**
 * Whether a test sshd can give a session a terminal (`ssh -tt`): it makes the new terminal its user's, of the group
 * tty, which only root may do unless the system's terminals are made in that group already (devpts' `gid=5`).
 * As an ordinary user on a system whose terminals are not, the tests' terminal runs are skipped with a line.
 */
export function terminalsWork(): boolean {
  if (terminals === undefined) {
    let ttyGroup = '';
    let made = '';
    try {
      ttyGroup = execFileSync('getent', ['group', 'tty'], { encoding: 'utf8' }).split(':')[2] ?? '';
      made = execFileSync('script', ['-qec', 'stat -c %g "$(tty)"', '/dev/null'], { encoding: 'utf8' }).trim();
    } catch {
      /* no script, no tty group: as below */
    }
    terminals = isRoot() || (ttyGroup !== '' && made === ttyGroup);
  }
  return terminals;
}

/** Why the terminal runs are skipped here (see terminalsWork). */
export const NO_TERMINALS = "as an ordinary user here, a test sshd cannot give a session a terminal (it must make it the tty group's: only root may)";

/**
 * Starts sshd on a free port; the user key may be shared between several sshds; `path` sets sessions' PATH; `home`
 * is the worker user's HOME and login folder (its ~/.profile, ~/.bashrc, caches; a new empty one by default), and
 * `homeLink` names it through a symbolic link; `asRoot` logs in as root; `extra`: more sshd_config lines.
 */
export async function startSshd(
  opts: { identity?: string; path?: string; home?: string; homeLink?: boolean; asRoot?: boolean; extra?: string[] } = {},
): Promise<Sshd> {
  if (opts.asRoot && !isRoot()) throw new Error('a worker that logs in as root needs this test to run as root');
  const dir = tempDir('sparehand-sshd-');
  // The worker user reads its authorized_keys from here (sshd, as root, reads it as that user).
  chmodSync(dir, 0o755);
  if (isRoot()) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  keygen(join(dir, 'host_key'));
  let identity = opts.identity;
  if (identity === undefined) {
    identity = join(dir, 'user_key');
    keygen(identity);
  }
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${identity}.pub`));
  const user = opts.asRoot ? 'root' : workerUser();
  const realHome = opts.home ?? tempDir('sparehand-worker-home-');
  chmodSync(realHome, 0o755);
  giveToWorker(realHome, user);
  let home = realHome;
  if (opts.homeLink) {
    home = join(tempDir('sparehand-worker-home-link-'), 'home');
    symlinkSync(realHome, home);
    chmodSync(join(home, '..'), 0o755);
  }
  const port = await freePort();
  const cfg = join(dir, 'sshd_config');
  const env = [`HOME=${home}`, ...(opts.path ? [`PATH=${opts.path}`] : [])];
  writeFileSync(
    cfg,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      ...(isRoot() ? [`AllowUsers ${user}`] : []),
      'MaxSessions 64',
      'MaxStartups 64',
      'LogLevel ERROR',
      // More sshd_config lines (`AllowTcpForwarding no`).
      ...(opts.extra ?? []),
      // One SetEnv line: sshd uses only the first. HOME is the worker's own folder, not the user's entry in
      // /etc/passwd (this machine's real HOME, or the shared test user's).
      `SetEnv ${env.join(' ')}`,
      // Each session starts in that HOME, as a login does in the user's home folder: the login shell runs the
      // command there (what rsync's relative --dir and the worker program's relative folder are relative to).
      `ForceCommand cd "$HOME" || exit 1; exec "$SHELL" -c "$SSH_ORIGINAL_COMMAND"`,
      '',
    ].join('\n'),
  );
  const remoteDir = join(realHome, '.cache', 'sparehand', 'work');
  const proc = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  await waitForPort(port, proc, () => log);
  const pub = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  return {
    port,
    dir,
    knownHostsLine: `[127.0.0.1]:${port} ${pub}`,
    identity,
    user,
    destination: `${user}@127.0.0.1`,
    home,
    remoteDir,
    stop: async () => {
      if (proc.exitCode === null) {
        const done = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await done;
      }
      // The worker's copies can be large (the sync tests send gigabytes): gone with the worker.
      rmSync(dir, { recursive: true, force: true });
      rmSync(realHome, { recursive: true, force: true });
      if (home !== realHome) rmSync(join(home, '..'), { recursive: true, force: true });
    },
  };
}

/** Trusts `sshd`'s host key in a test HOME (HOME/.ssh/known_hosts). */
export function trustHostKey(home: string, sshd: Pick<Sshd, 'knownHostsLine'>): void {
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  appendFileSync(join(home, '.ssh', 'known_hosts'), `${sshd.knownHostsLine}\n`);
}

/**
 * A worker owner's HOME whose ~/.profile sets PATH to `path`: the login PATH a run's command (and the rsync probe)
 * gets, which a login shell's /etc/profile would otherwise reset to this machine's (with its GNU rsync and perl).
 */
export function homeWithLoginPath(path: string): string {
  const home = tempDir('sparehand-worker-home-');
  writeFileSync(join(home, '.profile'), `export PATH=${path}\n`);
  return home;
}
