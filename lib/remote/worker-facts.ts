// What sparehand has found out about each worker and keeps between runs, one small file per worker and fact in
// sparehand's cache folder (else the temp folder a sandbox leaves writable): its rsync (rsync-found.ts) and its
// platform (below), found by `worker add`, `worker check` and every run. Read on the hook's path too: node:fs only.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { writeFileAtomically } from '../fs-atomic.js';
import { cacheDir } from '../paths.js';
import type { Facts } from '../classify/built-outputs.js';
import { platformHere } from '../platform/here.js';
import { type Platform, differenceLabels, parsePlatform, platformWords, samePlatform } from '../platform/platform.js';
import { jsonOf } from '../read-quietly.js';
import { readDirs, writableDir } from '../sandbox/own-dirs.js';

type Env = Pick<Context, 'home' | 'env'>;

/** A cache file's value: from sparehand's cache folder, else the temp folder a sandbox leaves writable. */
export function cached(c: Env, rel: string): unknown {
  for (const dir of readDirs(c, cacheDir(c), 'cache')) {
    const v = jsonOf(join(dir, rel));
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Keeps (or, with undefined, forgets) a cache file where it can be written; a cache never fails a run. */
export async function keep(c: Env, rel: string, text: string | undefined): Promise<void> {
  if (text === undefined) {
    for (const dir of readDirs(c, cacheDir(c), 'cache')) {
      try {
        rmSync(join(dir, rel), { force: true });
      } catch {
        // read-only here (a sandbox): the next run outside it looks again
      }
    }
    return;
  }
  const dir = writableDir(c, cacheDir(c), 'cache');
  if (dir !== undefined) await writeFileAtomically(join(dir, rel), text).catch(() => undefined);
}

/** One file per way of reaching a worker and fact (relative to the cache folder). */
export function workerFile(worker: Pick<Worker, 'destination' | 'port' | 'identity'>, fact: 'rsync' | 'platform'): string {
  const id = createHash('sha256').update(JSON.stringify([worker.destination, worker.port, worker.identity])).digest('hex').slice(0, 16);
  return join('workers', `${id}.${fact}.json`);
}

/** The worker's platform as last seen (by `worker check`, `worker add` or a run there), if ever. */
export function knownWorkerPlatform(c: Env, worker: Worker): Platform | undefined {
  const v = cached(c, workerFile(worker, 'platform')) as { platform?: unknown } | undefined;
  return typeof v?.platform === 'string' ? parsePlatform(v.platform) : undefined;
}

/** Records the worker's platform when it is not the one recorded (a worker reinstalled, a name moved to another machine). */
export async function rememberWorkerPlatform(c: Env, worker: Worker, p: Platform): Promise<void> {
  const known = knownWorkerPlatform(c, worker);
  if (known && platformWords(known) === platformWords(p)) return;
  await keep(c, workerFile(worker, 'platform'), `${JSON.stringify({ platform: platformWords(p), seen: new Date().toISOString() })}\n`);
}

/** For the classifier (lib/classify/built-outputs.ts): a configured worker whose recorded platform is not this machine's. */
export function platformFacts(c: Env, workers: readonly Worker[]): Facts {
  for (const w of workers) {
    const there = knownWorkerPlatform(c, w);
    if (there === undefined) continue;
    const here = platformHere(c.env).platform;
    if (samePlatform(here, there)) continue;
    const l = differenceLabels(here, there);
    return { otherPlatform: { here: l.here, worker: l.there } };
  }
  return {};
}
