// Where the project's copy lives on a worker (the project here: lib/project-root.ts), and who this machine is.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { createOwnFile, readOwnFile } from '../state/own-file.js';
import { remotePath } from '../remote/ssh-args.js';
import { workerDir } from '../remote/workers.js';
import { OWN_FOLDER, ownFolder } from '../state/own-folder.js';

/**
 * This machine, as workers know it: a random id made once (not the host name, which two laptops can share:
 * their runs would share a worker folder). In sparehand's state folder; where that cannot be written (an agent's
 * sandbox), in the project's own folder.
 */
export function clientId(c: Pick<Context, 'home' | 'env'>, root: string): string {
  const read = (file: string): string | undefined => {
    try {
      // The state folder's copy as sparehand's own state (never a link, a FIFO, another user's); the project's as is.
      const id = (file === state ? readOwnFile({}, file) : readFileSync(file, 'utf8'))?.trim();
      return id !== undefined && /^[0-9a-f]{32}$/.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  };
  const state = join(stateDir(c), 'client-id');
  const inProject = () => {
    const own = ownFolder(root);
    return 'dir' in own ? join(own.dir, 'client-id') : undefined;
  };
  const found = read(state) ?? read(join(root, OWN_FOLDER, 'client-id'));
  if (found) return found;
  const id = randomBytes(16).toString('hex');
  for (const place of [() => state, inProject]) {
    try {
      const file = place();
      if (file === undefined) continue;
      if (file === state) {
        const made = createOwnFile({}, state, `${id}\n`);
        if (made === 'made') return id;
        if (made === 'exists') throw Object.assign(new Error('made meanwhile'), { code: 'EEXIST' });
        continue;
      }
      writeFileSync(file, `${id}\n`, { flag: 'wx', mode: 0o600 });
      return id;
    } catch (e) {
      // Made by another run meanwhile: that one is the id.
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        const other = read(state) ?? read(join(root, OWN_FOLDER, 'client-id'));
        if (other) return other;
      }
    }
  }
  return id;
}

/** One folder per (this machine, project): readable name plus a hash that keeps two checkouts apart. */
export function projectKey(root: string, client: string): string {
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'project';
  const hash = createHash('sha256').update(`${client}\0${root}`).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

/** The copy `folder` of the project on the worker (relative to the login folder, or absolute). */
export function remoteRoot(worker: Worker, key: string, folder: number): string {
  return `${remotePath(workerDir(worker)).replace(/\/+$/, '')}/${key}/${folder}`;
}

/** The working folder relative to the project root, with `/` separators ('.' at the root). */
export function relativeCwd(root: string, cwd: string): string {
  const rel = relative(root, cwd);
  if (rel === '') return '.';
  return rel.split(sep).join('/');
}
