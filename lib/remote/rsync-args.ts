// rsync's argument arrays for the way up (pure; what is synced: sync-rules.ts). The way back is not rsync: the
// worker's tree watch sends exactly what the command changed (tree-watch.ts).
import type { Config, Worker } from '../config.js';
import { type Connection, rsyncPathMaking, rsyncRsh } from './ssh-args.js';
import { upFilterArgs } from './sync-rules.js';

/** Local project root → the slot folder on the worker: changed files only, deletions mirrored after the transfer. */
export function rsyncUpArgs(worker: Worker, conn: Connection, config: Config, localRoot: string, remoteRoot: string): string[] {
  return [
    '-a', '--delete-delay', '--protect-args',
    '-e', rsyncRsh(worker, conn),
    `--rsync-path=${rsyncPathMaking(remoteRoot)}`,
    ...upFilterArgs(config),
    `${localRoot}/`,
    `${worker.destination}:${remoteRoot}/`,
  ];
}
