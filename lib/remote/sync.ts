// rsync between the project here and its slot folder on a worker, over the shared ssh connection.
import type { Config, Worker } from '../config.js';
import { SparehandError } from '../errors.js';
import { capture } from '../process.js';
import { rsyncBackArgs, rsyncBackListArgs, rsyncUpArgs } from './rsync-args.js';
import type { Connection } from './ssh-args.js';

export interface SyncTarget {
  worker: Worker;
  conn: Connection;
  config: Config;
  localRoot: string;
  remoteRoot: string;
  env: NodeJS.ProcessEnv;
}

function failed(what: string, t: SyncTarget, r: { code: number; stderr: string }): SparehandError {
  const line = r.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' / ');
  return new SparehandError('SYNC', `${what} worker "${t.worker.name}" failed (rsync exit ${r.code}): ${line}`, {
    hint: 'is rsync installed on the worker? `sparehand worker check` tells',
  });
}

/** Runs rsync; its stdout, or an error saying what failed. */
async function rsync(t: SyncTarget, what: string, args: string[], input?: string): Promise<string> {
  const r = await capture('rsync', args, { env: t.env, ...(input === undefined ? {} : { input }) });
  // 24: some files vanished while being sent (an editor's temp file) — harmless for a test run.
  if (r.code !== 0 && r.code !== 24) throw failed(what, t, r);
  return r.stdout;
}

/** Sends the project: changed files only, deletions mirrored, ignored/excluded files on the worker kept. */
export async function syncUp(t: SyncTarget): Promise<void> {
  await rsync(t, 'sending the project to', rsyncUpArgs(t.worker, t.conn, t.config, t.localRoot, t.remoteRoot));
}

/** Dry run from the worker back: what would change here. */
export function listBack(t: SyncTarget): Promise<string> {
  return rsync(t, 'listing changes on', rsyncBackListArgs(t.worker, t.conn, t.config, t.localRoot, t.remoteRoot));
}

/** Fetches exactly `paths` from the worker. */
export async function fetchBack(t: SyncTarget, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const list = paths.map((p) => `${p}\0`).join('');
  await rsync(t, 'bringing files back from', rsyncBackArgs(t.worker, t.conn, t.localRoot, t.remoteRoot), list);
}
