// `sparehand worker reset`: wipes a project's copies on a worker (dependency folders, build caches, the copies'
// records) and this machine's memory of them (the ancestors, the installs that failed there), so the next run starts from a fresh copy.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { forgetFailedInstalls } from './failed-installs.js';
import { clientId, projectKey } from './project.js';
import { copyId } from '../sync/ancestor.js';
import { OWN_FOLDER } from '../state/own-folder.js';
import { connect, connectionFor, sshEnv } from '../remote/connection.js';
import { remotePath } from '../remote/ssh-args.js';
import { captureRemote } from '../remote/transport.js';
import { workerDir } from '../remote/workers.js';

/** What a reset did on one worker. */
export interface Reset {
  /** The project's folder of copies there, as the worker's --dir names it (`~/.cache/sparehand/work/<key>`). */
  there: string;
  /** Whether there was one to remove. */
  removed: boolean;
  /** How many of this machine's records of those copies were forgotten (ancestors, failed installs). */
  forgot: number;
}

/** Prints `removed` when the folder was there (and removes it), `none` when it was not: one round trip either way. */
const REMOVE = 'if [ -e "$1" ] || [ -L "$1" ]; then rm -rf -- "$1" && echo removed; else echo none; fi';

/**
 * The package managers' own caches on a worker, relative to its login folder (npm's, pnpm's store, yarn's, bun's,
 * pip's, uv's; Linux's and macOS's places): installs on the worker fill and use them, so a reset keeps them unless
 * told `--all`.
 */
export const PACKAGE_CACHES = [
  '.npm/_cacache',
  '.local/share/pnpm/store',
  '.cache/pnpm',
  '.cache/yarn',
  '.bun/install/cache',
  '.cache/pip',
  '.cache/uv',
  'Library/pnpm/store',
  'Library/Caches/Yarn',
  'Library/Caches/pip',
  'Library/Caches/uv',
] as const;
export const PACKAGE_CACHE_OWNERS = "npm's, pnpm's, yarn's, bun's, pip's, uv's";

/** Prints each of its arguments (paths relative to the login folder) that was there, once removed. */
const REMOVE_CACHES = 'cd || exit 1; for p; do if [ -e "$p" ]; then rm -rf -- "$p" && echo "$p"; fi; done';

/** Removes the package managers' caches on `worker`; the ones that were there (`~/…`). */
export async function resetCaches(ctx: Context, worker: Worker): Promise<string[]> {
  await connect(ctx, worker);
  const r = await captureRemote(sshEnv(ctx), worker, connectionFor(ctx, worker), quote(['sh', '-c', REMOVE_CACHES, 'sparehand-reset', ...PACKAGE_CACHES]));
  if (r.code !== 0) {
    throw new SparehandError(
      'WORKER',
      `cannot remove the package managers' caches on worker "${worker.name}": ${r.stderr.trim().split('\n')[0] || `exit ${r.code}`}`,
    );
  }
  const known = new Set<string>(PACKAGE_CACHES);
  return r.stdout
    .split('\n')
    .filter((l) => known.has(l))
    .map((l) => `~/${l}`);
}

/** Removes `root`'s copies on `worker` and the ancestors of them here; says what there was. */
export async function resetProject(ctx: Context, worker: Worker, root: string): Promise<Reset> {
  const key = projectKey(root, clientId(ctx, root));
  const dir = workerDir(worker).replace(/\/+$/, '');
  const there = `${remotePath(dir)}/${key}`;
  await connect(ctx, worker);
  const r = await captureRemote(sshEnv(ctx), worker, connectionFor(ctx, worker), quote(['sh', '-c', REMOVE, 'sparehand-reset', there]));
  const answer = r.stdout.trim();
  if (r.code !== 0 || (answer !== 'removed' && answer !== 'none')) {
    throw new SparehandError('WORKER', `cannot remove ${dir}/${key} on worker "${worker.name}": ${r.stderr.trim().split('\n')[0] || `exit ${r.code}`}`, {
      hint: 'a run of this project may be using it there: try again when it has ended',
    });
  }
  let forgot = forgetFailedInstalls(ctx, worker, key);
  const mine = copyId(worker, 0, key).replace(/-0$/, '-');
  const sync = join(root, OWN_FOLDER, 'sync');
  let names: string[] = [];
  try {
    names = readdirSync(sync);
  } catch {
    /* no ancestors here */
  }
  for (const n of names) {
    if (!n.startsWith(mine) || !/^\d+\.json$/.test(n.slice(mine.length))) continue;
    rmSync(join(sync, n), { force: true });
    forgot++;
  }
  return { there: `${dir}/${key}`, removed: answer === 'removed', forgot };
}
