// rsync of the project here to its slot folder on a worker, over the shared ssh connection.
import type { Config, Worker } from '../config.js';
import { SparehandError } from '../errors.js';
import { capture } from '../process.js';
import { rsyncUpArgs } from './rsync-args.js';
import type { Connection } from './ssh-args.js';

export interface SyncTarget {
  worker: Worker;
  conn: Connection;
  config: Config;
  localRoot: string;
  remoteRoot: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Sends the project: changed files only, deletions mirrored, ignored and excluded files on the worker kept.
 * rsync stops when `signal` aborts, and when sparehand dies.
 */
export async function syncUp(t: SyncTarget, signal?: AbortSignal): Promise<void> {
  const r = await capture('rsync', rsyncUpArgs(t.worker, t.conn, t.config, t.localRoot, t.remoteRoot), { env: t.env, tied: true, ...(signal ? { signal } : {}) });
  // 24: some files vanished while being sent (an editor's temp file): harmless, the next run sends the rest.
  if (r.code === 0 || r.code === 24 || signal?.aborted) return;
  const line = r.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' / ');
  throw new SparehandError('SYNC', `sending the project to worker "${t.worker.name}" failed (rsync exit ${r.code}): ${line}`, {
    hint: 'is rsync installed on the worker? `sparehand worker check` tells',
  });
}
