// A worker that did not answer is remembered for a minute (per worker, in the state folder): runs in that minute
// skip it at once instead of waiting out a connect timeout each, and say so; `worker check` asks it again at once
// (and forgets it when it answers). A worker that answers slowly is not remembered: only no answer is.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { readDirs, writableDir } from '../state/own-dirs.js';
import { type Said, readOwnJson, writeOwnFile } from '../state/own-file.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

/** How long a worker that did not answer is skipped. */
export const REMEMBER_MS = 60_000;

export interface NoAnswer {
  /** When it did not answer (ms since the epoch). */
  at: number;
  /** What ssh said, as one sentence. */
  why: string;
}

const SUB = 'unreachable';
const fileName = (w: Worker) => `${w.name.replace(/[^\w.-]/g, '_')}.json`;

/** The worker's last "no answer", while it is still fresh (from a file sparehand made: readOwnJson). */
export function rememberedNoAnswer(c: Env, worker: Worker, now = Date.now()): NoAnswer | undefined {
  for (const dir of readDirs(c, join(stateDir(c), SUB), SUB)) {
    const v = readOwnJson(c, join(dir, fileName(worker))) as Partial<NoAnswer> | undefined;
    if (typeof v?.at === 'number' && typeof v.why === 'string' && now - v.at < REMEMBER_MS && now >= v.at) return { at: v.at, why: v.why };
  }
  return undefined;
}

/** Remembers that `worker` did not answer (skipped when nothing can be written: the next run asks again). */
export function rememberNoAnswer(c: Env, worker: Worker, why: string): void {
  const dir = writableDir(c, join(stateDir(c), SUB), SUB);
  if (dir === undefined) return;
  // A convenience: not written, the next run asks again.
  writeOwnFile(c, join(dir, fileName(worker)), JSON.stringify({ at: Date.now(), why } satisfies NoAnswer));
}

/** Forgets it (it answered). */
export function forgetNoAnswer(c: Env, worker: Worker): void {
  for (const dir of readDirs(c, join(stateDir(c), SUB), SUB)) rmSync(join(dir, fileName(worker)), { force: true });
}
