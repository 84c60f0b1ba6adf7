// `sparehand worker remove` closes the worker's shared ssh connection (ControlMaster) instead of leaving it up for
// ControlPersist's 10 minutes; never one another worker still reaches the same way, nor the session of a run that
// is using it. A real sshd.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SshWorker } from '../../lib/config.js';
import { connectionFor } from '../../lib/remote/connection.js';
import { sshControlArgs } from '../../lib/remote/ssh-args.js';
import { sparehand } from '../helpers/cli.js';
import { gitProject, startMarker, until } from '../helpers/project.js';
import { type WorkerHome, sharedWorker, workerHome } from '../helpers/worker-env.js';

const w = sharedWorker();

/** The workers of `h`'s config, as the test sshd's helpers wrote them. */
const workersOf = (h: WorkerHome): SshWorker[] => JSON.parse(readFileSync(join(h.home, '.config', 'sparehand', 'config.json'), 'utf8')).workers;

/** The pid of the shared connection's master for `worker`, or undefined when none is up. */
function master(h: WorkerHome, worker: SshWorker): number | undefined {
  const r = spawnSync('ssh', sshControlArgs(worker, connectionFor(h, worker), 'check'), { env: h.env, encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(r.stderr)?.[1];
  return r.status === 0 && pid ? Number(pid) : undefined;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('worker remove', () => {
  it('closes its shared ssh connection: the master process ends and its socket is gone', async () => {
    const h = workerHome([w.sshd]);
    const [worker] = workersOf(h) as [SshWorker];
    expect((await sparehand(['worker', 'check', 'w0'], { env: h.env })).exitCode).toBe(0);
    const pid = master(h, worker);
    expect(pid).toBeDefined();
    const r = await sparehand(['worker', 'remove', 'w0'], { env: h.env });
    expect([r.exitCode, r.stderr]).toEqual([0, 'sparehand: removed worker "w0" and closed its shared ssh connection\n']);
    expect(await until(() => !alive(pid as number), 3000)).toBe(true);
    expect(existsSync(connectionFor(h, worker).controlPath)).toBe(false);
  });

  it('leaves it up while another worker reaches the same host the same way', async () => {
    const h = workerHome([w.sshd, w.sshd]);
    const [first, second] = workersOf(h) as [SshWorker, SshWorker];
    expect((await sparehand(['worker', 'check', 'w1'], { env: h.env })).exitCode).toBe(0);
    const r = await sparehand(['worker', 'remove', 'w1'], { env: h.env });
    expect(r.stderr).toBe('sparehand: removed worker "w1"; its shared ssh connection stays up for worker "w0", which reaches the same host the same way\n');
    expect(master(h, first)).toBeDefined();
    expect(master(h, second)).toBe(master(h, first));
    await h.close();
  });

  it('never cuts a run that is using it: the run ends as it would; no new session goes through it', async () => {
    const h = workerHome([w.sshd]);
    const [worker] = workersOf(h) as [SshWorker];
    const mark = startMarker();
    const run = sparehand(['run', '--', `${mark.touch}; sleep 2; echo still-here`], { env: h.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect(await until(mark.started)).toBe(true);
    const pid = master(h, worker);
    const r = await sparehand(['worker', 'remove', 'w0'], { env: h.env });
    expect(r.stderr).toBe(
      'sparehand: removed worker "w0"; its shared ssh connection takes no new session, and ssh ends it 10m (its ControlPersist) after the 1 run of this machine using it ends\n',
    );
    const done = await run;
    expect([done.exitCode, done.stdout], done.stderr).toEqual([0, 'still-here\n']);
    expect(master(h, worker)).toBeUndefined();
    if (pid) process.kill(pid, 'SIGTERM');
  });
});
