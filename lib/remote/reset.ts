// `sparehand worker reset`: wipes a project's copies on a worker (dependency folders, build caches, the copies'
// records) and this machine's memory of them (the ancestors, the installs that failed there), so the next run starts from a fresh copy.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { forgetFailedInstalls } from '../run/failed-installs.js';
import { clientId, projectKey } from '../run/project.js';
import { copyId } from '../sync/ancestor.js';
import { OWN_FOLDER } from '../sync/own-folder.js';
import { connect, connectionFor, sshEnv } from './connection.js';
import { remotePath } from './ssh-args.js';
import { captureRemote } from './transport.js';
import { workerDir } from './workers.js';

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
