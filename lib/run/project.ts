// Where the project's copy lives on a worker (the project here: lib/project-root.ts).
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, relative, sep } from 'node:path';
import type { Worker } from '../config.js';
import { remotePath } from '../remote/ssh-args.js';
import { workerDir } from '../remote/workers.js';

/** One folder per (this machine, project): readable name plus a hash that keeps two checkouts apart. */
export function projectKey(root: string, host: string = hostname()): string {
  const name = basename(root).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'project';
  const hash = createHash('sha256').update(`${host}\0${root}`).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

/** The slot's copy of the project on the worker (relative to the login folder, or absolute). */
export function remoteRoot(worker: Worker, root: string, slot: number): string {
  return `${remotePath(workerDir(worker)).replace(/\/+$/, '')}/${projectKey(root)}/${slot}`;
}

/** The working folder relative to the project root, with `/` separators ('.' at the root). */
export function relativeCwd(root: string, cwd: string): string {
  const rel = relative(root, cwd);
  if (rel === '') return '.';
  return rel.split(sep).join('/');
}
