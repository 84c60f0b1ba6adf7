// Where the project is here (git top level, else the current folder) and where its copy lives on a worker.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, relative, sep } from 'node:path';
import type { Worker } from '../config.js';
import { remotePath } from '../remote/ssh-args.js';
import { workerDir } from '../remote/workers.js';

/** The git top level of `cwd`, or `cwd` itself when it is not in a git work tree (or git is missing). */
export function projectRoot(cwd: string): string {
  try {
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim();
    return top || cwd;
  } catch {
    return cwd;
  }
}

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
