// A dependency install that failed on a worker is remembered here (per worker and project, in the state folder) by
// the hash of what it was made from (lib/run/deps.ts): the next run does not try the same install again (npm ci or
// pip for 12 s before --or-local runs the command here anyway). A change to the lock file is another hash, and
// is tried; `sparehand worker reset` forgets it all.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import type { ExecResult } from '../remote/session.js';
import { stateDir } from '../paths.js';
import { readDirs, writableDir } from '../state/own-dirs.js';
import { type Said, readOwnJson, writeOwnFile } from '../state/own-file.js';
import type { DepsInstall } from './deps.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

export interface FailedInstall {
  /** The install that failed (its folder and command). */
  command: string;
  dir: string;
  /** The worker's words: the exit status and the installer's first lines. */
  why: string;
  at: number;
}

const SUB = 'failed-installs';
const fileName = (w: Worker, key: string) => `${w.name.replace(/[^\w.-]/g, '_')}--${key.replace(/[^\w.-]/g, '_')}.json`;

function load(c: Env, worker: Worker, key: string): Record<string, FailedInstall> {
  for (const dir of readDirs(c, join(stateDir(c), SUB), SUB)) {
    const v = readOwnJson(c, join(dir, fileName(worker, key)));
    if (typeof v === 'object' && v !== null) return v as Record<string, FailedInstall>;
  }
  return {};
}

/** The remembered failure of one of `deps` (the same hash) on `worker`, if any. */
export function failedInstall(c: Env, worker: Worker, key: string, deps: readonly DepsInstall[]): FailedInstall | undefined {
  const known = load(c, worker, key);
  for (const d of deps) {
    const f = known[d.hash];
    if (f && typeof f.why === 'string') return f;
  }
  return undefined;
}

/** Remembers that the install of hash `hash` failed on `worker` (skipped when nothing can be written). */
export function rememberFailedInstall(c: Env, worker: Worker, key: string, hash: string, failure: FailedInstall): void {
  const dir = writableDir(c, join(stateDir(c), SUB), SUB);
  if (dir === undefined) return;
  const file = join(dir, fileName(worker, key));
  // The last few only: a project whose lock file keeps changing does not grow the file without end.
  const kept = Object.entries(load(c, worker, key)).slice(-9);
  // Not written: the next run tries again.
  writeOwnFile(c, file, JSON.stringify(Object.fromEntries([...kept, [hash, failure]])));
}

/** A failed install the worker named (one of the run's own, by its hash: the worker's word is not taken for more). */
export function rememberFailure(c: Env, worker: Worker, key: string, deps: readonly DepsInstall[], result: ExecResult): void {
  const d = deps.find((x) => x.hash === result.depFailed?.hash);
  if (d && result.refused) rememberFailedInstall(c, worker, key, d.hash, { command: d.command, dir: d.dir, why: oneLine(result.refused), at: Date.now() });
}

/** The worker's words as one line of plain text: controls and the Unicode characters that reorder text made `?`. */
const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu, '?').slice(0, 1000);

/** Forgets the failed installs of the project `key` on `worker` (worker reset); how many there were. */
export function forgetFailedInstalls(c: Env, worker: Worker, key: string): number {
  let forgot = 0;
  for (const dir of readDirs(c, join(stateDir(c), SUB), SUB)) {
    const file = join(dir, fileName(worker, key));
    if (!existsSync(file)) continue;
    rmSync(file, { force: true });
    forgot++;
  }
  return forgot;
}

/** The line a run says when it skips a worker for a remembered failure. */
export const failedInstallLine = (worker: Worker, f: FailedInstall): string =>
  `${worker.name} cannot install this project's dependencies (remembered from an earlier run: ${f.why})`;
