// A real container for exec-transport tests: podman runs `sleep infinity` in a root file system folder built here
// (no image registry is reachable): this machine's /usr and /etc bound read-only, /tmp shared (so the tests see
// the worker's folders and markers as they do with the test sshd), a HOME of its own. No network.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { which } from '../../lib/which.js';
import { tempDir } from './context.js';

export interface Container {
  name: string;
  /** The command that runs a program in it: the exec worker's `exec`. */
  exec: string[];
  /** A throwaway folder for the worker's `--dir` (under /tmp: the same path here and there). */
  remoteDir: string;
  stop: () => Promise<void>;
}

/**
 * podman's options for this machine: runc where it is installed (crun refuses a host whose cgroup v2 hierarchy
 * still has controllers beside v1's), and limits no higher than this process's (raising them needs a capability
 * a container host may not give).
 */
function podmanRun(): string[] {
  const runtime = which('runc', process.env.PATH) === undefined ? [] : ['--runtime', 'runc'];
  return [...runtime, 'run', '-d', '--network', 'none', '--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];
}

/** The root file system folder: mount points, and the host's /bin, /lib… links (merged /usr) or binds. */
function rootFs(): { dir: string; binds: string[] } {
  const dir = tempDir('sparehand-rootfs-');
  for (const d of ['usr', 'etc', 'tmp', 'root', 'proc', 'dev', 'sys', 'run', 'var']) mkdirSync(join(dir, d));
  const binds = ['-v', '/usr:/usr:ro', '-v', '/etc:/etc:ro', '-v', '/tmp:/tmp'];
  for (const d of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const host = `/${d}`;
    if (!existsSync(host)) continue;
    if (lstatSync(host).isSymbolicLink()) symlinkSync(readlinkSync(host), join(dir, d));
    else {
      mkdirSync(join(dir, d));
      binds.push('-v', `${host}:${host}:ro`);
    }
  }
  return { dir, binds };
}

/** Starts the container (as root); `stop` removes it and its root folder's container state. */
export function startContainer(): Container {
  const name = `sparehand-test-${process.pid}-${Date.now().toString(36)}`;
  const { dir, binds } = rootFs();
  execFileSync('podman', [...podmanRun(), '--name', name, ...binds, '--rootfs', dir, 'sleep', 'infinity'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const remoteDir = tempDir('sparehand-container-dir-');
  return {
    name,
    exec: ['podman', 'exec', '-i', name],
    remoteDir,
    stop: async () => {
      execFileSync('podman', ['rm', '-f', '-t', '0', name], { stdio: 'ignore' });
    },
  };
}

/** Whether this test file's shared worker is a container (test/helpers/podman-first.ts) rather than an sshd. */
export const containerWorker = (): boolean => process.env.SPAREHAND_TEST_WORKER === 'podman';
