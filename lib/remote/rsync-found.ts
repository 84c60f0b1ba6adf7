// Each side's rsync, found once and remembered: here by the program's path and mtime (a run must not pay for
// `rsync --version`), on a worker per worker until `worker check` or `worker add` looks again or a sync fails.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { capture } from '../process.js';
import { which } from '../which.js';
import { connect, connectionFor } from './connection.js';
import { WORKER_RSYNC_PROBE, type RsyncInfo, parseRsyncVersion, pickWorkerRsync } from './rsync-flavour.js';
import type { Connection } from './ssh-args.js';
import { captureRemote, workerWhere } from './transport.js';
import { cached, keep } from './worker-facts.js';

type Env = Pick<Context, 'home' | 'env'>;

interface HereEntry {
  mtimeMs: number;
  size: number;
  ino: number;
  info: RsyncInfo;
}

/** The rsync on this machine's PATH and what it is. */
export async function rsyncHere(c: Env): Promise<RsyncInfo> {
  const path = which('rsync', c.env.PATH);
  if (path === undefined) {
    throw new SparehandError('SYNC', 'rsync is not installed here (it is not on PATH)', {
      hint: 'install rsync here (Debian/Ubuntu: `apt-get install rsync`; a Mac has /usr/bin/rsync, or `brew install rsync`)',
    });
  }
  const st = statSync(path);
  const cache = (cached(c, 'rsync-here.json') ?? {}) as Record<string, HereEntry>;
  const hit = cache[path];
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size && hit.ino === st.ino) return hit.info;
  const r = await capture(path, ['--version'], { env: c.env });
  const info = parseRsyncVersion(`${r.stdout}\n${r.stderr}`, path) ?? { flavour: 'unknown', version: null, protocol: null, path };
  await keep(c, 'rsync-here.json', `${JSON.stringify({ ...cache, [path]: { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino, info } })}\n`);
  return info;
}

/** One file per way of reaching a worker (relative to the cache folder). */
function workerFile(worker: Worker): string {
  const id = createHash('sha256')
    .update(JSON.stringify([workerWhere(worker), worker.port, worker.identity]))
    .digest('hex')
    .slice(0, 16);
  return join('workers', `${id}.rsync.json`);
}

/** What was last found on the worker, if anything. */
export function knownWorkerRsync(c: Env, worker: Worker): RsyncInfo | undefined {
  return (cached(c, workerFile(worker)) as { rsync?: RsyncInfo } | undefined)?.rsync;
}

/** Remembers the worker's rsync (undefined: forget it, so that the next run looks again). */
export async function rememberWorkerRsync(c: Env, worker: Worker, info: RsyncInfo | undefined): Promise<void> {
  await keep(c, workerFile(worker), info === undefined ? undefined : `${JSON.stringify({ rsync: info })}\n`);
}

/** Looks for rsync on the worker over the shared connection (its PATH first, then where Homebrew and MacPorts put it, then its owner's login PATH). */
export async function probeWorkerRsync(c: Env, worker: Worker, conn: Connection): Promise<RsyncInfo | undefined> {
  const r = await captureRemote({ ...c.env }, worker, conn, quote(['sh', '-c', WORKER_RSYNC_PROBE]));
  // ssh says it could not connect with 255; an exec program has no such code: failing with nothing said is it.
  if (worker.exec === undefined ? r.code === 255 : r.code !== 0 && !r.stdout)
    throw new SparehandError('SSH', `cannot reach worker "${worker.name}" to look for its rsync: ${r.stderr.trim()}`);
  return pickWorkerRsync(r.stdout);
}

/** The worker's rsync: as remembered, else looked for (and remembered). Throws when the worker has none. */
export async function rsyncThere(c: Env, worker: Worker, conn: Connection): Promise<RsyncInfo> {
  const known = knownWorkerRsync(c, worker);
  if (known) return known;
  const found = await probeWorkerRsync(c, worker, conn);
  if (found === undefined) throw noRsyncThere(worker);
  await rememberWorkerRsync(c, worker, found);
  return found;
}

export function noRsyncThere(worker: Worker): SparehandError {
  return new SparehandError('SYNC', `worker "${worker.name}" has no rsync (looked on its PATH, its owner's login PATH, and for Homebrew's and MacPorts')`, {
    hint: 'install rsync on the worker (Debian/Ubuntu: `apt-get install rsync`; a Mac: `brew install rsync`)',
  });
}

/** After `worker add`: the worker's rsync if the worker can be reached now (remembered), else undefined. */
export async function lookForWorkerRsync(c: Env, worker: Worker): Promise<RsyncInfo | undefined> {
  const conn = connectionFor(c, worker);
  try {
    await connect(c, worker, conn);
    const found = await probeWorkerRsync(c, worker, conn);
    await rememberWorkerRsync(c, worker, found);
    return found;
  } catch (e) {
    if (isSparehandError(e)) return undefined;
    throw e;
  }
}
