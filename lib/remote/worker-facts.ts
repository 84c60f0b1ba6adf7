// What sparehand has found out about each worker and keeps between runs, in sparehand's cache folder (else the
// temp folder a sandbox leaves writable): its rsync (rsync-found.ts, a file per worker) and its platform (below,
// one file for all: `workers/platforms.json`), found by `worker add`, `worker check` and every run. The platforms
// are read on the hook's path: node:fs only here (node:crypto alone costs the hook ~5 ms to load).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import { workerWhere } from './worker-where.js';
import type { Context } from '../context.js';
import { cacheDir } from '../paths.js';
import type { Facts } from '../classify/built-outputs.js';
import { platformHere } from '../platform/here.js';
import { type Platform, differenceLabels, parsePlatform, platformWords, samePlatform } from '../platform/platform.js';
import { readDirs, writableDir } from '../state/own-dirs.js';
import { type Said, readOwnJson, writeOwnFile } from '../state/own-file.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

/** A cache file's value: from sparehand's cache folder, else the temp folder a sandbox leaves writable. */
export function cached(c: Env, rel: string): unknown {
  for (const dir of readDirs(c, cacheDir(c), 'cache')) {
    const v = readOwnJson(c, join(dir, rel));
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
  // Never through a link planted in the cache folder (writeFileAtomically would write where it points).
  if (dir !== undefined) writeOwnFile(c, join(dir, rel), text);
}

const PLATFORMS = join('workers', 'platforms.json');
/** A way of reaching a worker, as the platforms file knows it. */
const reach = (w: Pick<Worker, 'destination' | 'exec' | 'port' | 'identity'>): string => JSON.stringify([workerWhere(w), w.port ?? null, w.identity ?? null]);
type Platforms = Record<string, { platform: string; seen: string }>;
const platforms = (c: Env): Platforms => {
  const v = cached(c, PLATFORMS);
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Platforms) : {};
};

/** The worker's platform as last seen (by `worker check`, `worker add` or a run there), if ever. */
export function knownWorkerPlatform(c: Env, worker: Worker): Platform | undefined {
  const seen = platforms(c)[reach(worker)]?.platform;
  return typeof seen === 'string' ? parsePlatform(seen) : undefined;
}

/** Records the worker's platform when it is not the one recorded (a worker reinstalled, a name moved to another machine). */
export async function rememberWorkerPlatform(c: Env, worker: Worker, p: Platform): Promise<void> {
  const all = platforms(c);
  if (all[reach(worker)]?.platform === platformWords(p)) return;
  all[reach(worker)] = { platform: platformWords(p), seen: new Date().toISOString() };
  await keep(c, PLATFORMS, `${JSON.stringify(all, null, 2)}\n`);
}

/** For the classifier (lib/classify/built-outputs.ts): a configured worker whose recorded platform is not this machine's. */
export function platformFacts(c: Env, workers: readonly Worker[]): Facts {
  if (workers.length === 0) return {};
  const all = platforms(c);
  for (const w of workers) {
    const seen = all[reach(w)]?.platform;
    const there = typeof seen === 'string' ? parsePlatform(seen) : undefined;
    if (there === undefined) continue;
    const here = platformHere(c.env).platform;
    if (samePlatform(here, there)) continue;
    const l = differenceLabels(here, there);
    return { otherPlatform: { here: l.here, worker: l.there } };
  }
  return {};
}
