// A real sshd on 127.0.0.1 with throwaway host and user keys, for worker tests. No fake ssh anywhere.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './context.js';

export interface Sshd {
  port: number;
  dir: string;
  /** `[127.0.0.1]:PORT <key>`: the line a known_hosts file needs. */
  knownHostsLine: string;
  /** Private key accepted by this sshd. */
  identity: string;
  /** A throwaway folder for the worker's `--dir`. */
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

/**
 * Starts sshd (as root) on a free port; the user key may be shared between several sshds; `path` sets sessions'
 * PATH; `home` gives the worker's sessions a HOME of their own (their ~/.profile, ~/.bashrc, caches); `extra`: more
 * sshd_config lines.
 */
export async function startSshd(opts: { identity?: string; path?: string; home?: string; user?: 'nobody'; extra?: string[] } = {}): Promise<Sshd> {
  const dir = tempDir('sparehand-sshd-');
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  keygen(join(dir, 'host_key'));
  let identity = opts.identity;
  if (identity === undefined) {
    identity = join(dir, 'user_key');
    keygen(identity);
  }
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${identity}.pub`));
  const port = await freePort();
  const cfg = join(dir, 'sshd_config');
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
      'MaxSessions 64',
      'MaxStartups 64',
      'LogLevel ERROR',
      // More sshd_config lines (`AllowTcpForwarding no`).
      ...(opts.extra ?? []),
      // One SetEnv line: sshd uses only the first.
      ...(opts.path || opts.home ? [`SetEnv ${[opts.path ? `PATH=${opts.path}` : '', opts.home ? `HOME=${opts.home}` : ''].join(' ').trim()}`] : []),
      // A worker whose owner is not root (as real ones are): every session becomes `nobody` before it runs anything.
      ...(opts.user
        ? [
            `ForceCommand exec env HOME=${join(dir, 'remote')} setpriv --reuid=${opts.user} --regid=nogroup --clear-groups /bin/sh -c 'cd "$HOME" && exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"'`,
          ]
        : []),
      '',
    ].join('\n'),
  );
  const remoteDir = join(dir, 'remote');
  mkdirSync(remoteDir);
  if (opts.user) {
    chmodSync(dir, 0o755);
    execFileSync('chown', [opts.user, remoteDir]);
  }
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
    remoteDir,
    stop: async () => {
      if (proc.exitCode === null) {
        const done = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await done;
      }
      // The worker's copies can be large (the sync tests send gigabytes): gone with the worker.
      rmSync(dir, { recursive: true, force: true });
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
