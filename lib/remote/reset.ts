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

/** Removes `root`'s copies on `worker` and the ancestors of them here; returns the folder removed there. */
export async function resetProject(ctx: Context, worker: Worker, root: string): Promise<string> {
  const key = projectKey(root, clientId(ctx, root));
  const there = `${remotePath(workerDir(worker)).replace(/\/+$/, '')}/${key}`;
  // Named as the config names the folder (`~/.cache/sparehand/work/…`), not as a path relative to the login folder.
  const shown = `${workerDir(worker).replace(/\/+$/, '')}/${key}`;
  await connect(ctx, worker);
  const r = await captureRemote(sshEnv(ctx), worker, connectionFor(ctx, worker), quote(['rm', '-rf', '--', there]));
  if (r.code !== 0) {
    throw new SparehandError('WORKER', `cannot remove ${shown} on worker "${worker.name}": ${r.stderr.trim().split('\n')[0] ?? `exit ${r.code}`}`, {
      hint: 'a run of this project may be using it there: try again when it has ended',
    });
  }
  forgetFailedInstalls(ctx, worker, key);
  const mine = copyId(worker, 0, key).replace(/-0$/, '-');
  const sync = join(root, OWN_FOLDER, 'sync');
  let names: string[] = [];
  try {
    names = readdirSync(sync);
  } catch {
    /* no ancestors here */
  }
  for (const n of names) if (n.startsWith(mine) && /^\d+\.json$/.test(n.slice(mine.length))) rmSync(join(sync, n), { force: true });
  return shown;
}
