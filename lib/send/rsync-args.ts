// rsync's argument arrays for the way up (pure; what is synced: sync-rules.ts; which rsync: rsync-flavour.ts).
// The way back is not rsync: the worker program reports exactly what the command changed (lib/remote/worker/report.pl).
import type { Config, Worker } from '../config.js';
import type { UpPlan } from '../remote/rsync-flavour.js';
import { type Connection, rsyncPathMaking } from '../remote/ssh-args.js';
import { rsyncShell } from '../remote/transport.js';
import { upFilterArgs } from '../remote/sync-rules.js';

/** GNU rsync 3 on both sides. */
export const GNU_PLAN: UpPlan = { del: '--delete-delay', rsh: 'quoted' };

export interface UpSides {
  plan: UpPlan;
  /** The worker's rsync: `rsync` or an absolute path there. */
  there: string;
  /** The file of paths git ignores here (sync-rules.ts ignoredPatterns). */
  ignoredFile?: string;
  /** More paths to hide (held-back.ts: files held back for what they hold). */
  hidden?: readonly string[];
  /** Tracked files the secret list names, sent (held-back.ts). */
  tracked?: readonly string[];
}

export interface UpCommand {
  args: string[];
  /** Added to rsync's environment (the ssh command, when openrsync could not take it as words). */
  env: Record<string, string>;
}

/**
 * Local project root → the slot folder on the worker: changed files only, deletions mirrored after the transfer.
 * The destination is `.` in the folder that --rsync-path entered, so no rsync has to protect a path argument.
 */
export function rsyncUpArgs(
  worker: Worker,
  conn: Connection,
  config: Config,
  localRoot: string,
  remoteRoot: string,
  sides: UpSides = { plan: GNU_PLAN, there: 'rsync' },
): UpCommand {
  const { rsh, env, host, extra } = rsyncShell(worker, conn, sides.plan);
  return {
    args: [
      '-a',
      sides.plan.del,
      ...extra,
      '-e',
      rsh,
      `--rsync-path=${rsyncPathMaking(remoteRoot, sides.there)}`,
      ...upFilterArgs(config, sides.ignoredFile, sides.hidden, sides.tracked),
      `${localRoot}/`,
      `${host}:.`,
    ],
    env,
  };
}
