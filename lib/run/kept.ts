// What the project's copies keep on the workers because it does not run here (their ancestors' `k` entries:
// native code of a worker's platform, never brought back; lib/sync/ancestor.ts), and `sparehand worker fetch`,
// which brings it on purpose: to its own path here or under another folder, never over a file that is here.
import { chmodSync, closeSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { describeCode } from '../platform/native-code.js';
import { nativeCodeOfFile } from '../platform/of-file.js';
import { type FileHead, type FileSink, fetchFiles } from '../remote/fetch-files.js';
import { copyId, loadAncestor } from '../sync/ancestor.js';
import { refusedPath } from '../sync/guard.js';
import { OWN_FOLDER } from '../state/own-folder.js';
import { clientId, projectKey, remoteRoot } from './project.js';

export interface KeptOutput {
  /** Relative to the project root. */
  path: string;
  worker: Worker;
  /** The copy there that holds it (the newest, when several do). */
  folder: number;
  /** md5 of the content when it was kept. */
  hash: string;
  /** When that copy's record was last written (its last run), ms since the epoch. */
  at: number;
}

/** Every file the project's copies on `workers` keep for themselves, one per path (from the copy that ran last). */
export function keptOutputs(ctx: Pick<Context, 'home' | 'env'>, workers: readonly Worker[], root: string): KeptOutput[] {
  const key = projectKey(root, clientId(ctx, root));
  const dir = join(root, OWN_FOLDER, 'sync');
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const newest = new Map<string, KeptOutput>();
  for (const worker of workers) {
    const prefix = copyId(worker, 0, key).replace(/-0$/, '-');
    for (const name of names) {
      const folder = name.startsWith(prefix) ? /^(\d+)\.json$/.exec(name.slice(prefix.length))?.[1] : undefined;
      if (folder === undefined) continue;
      const at = statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
      for (const [path, e] of Object.entries(loadAncestor(root, name.slice(0, -'.json'.length)).paths)) {
        if (e.k !== 1 || (newest.get(path)?.at ?? -1) >= at) continue;
        newest.set(path, { path, worker, folder: Number(folder), hash: e.h, at });
      }
    }
  }
  return [...newest.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface Fetched {
  path: string;
  worker: string;
  size: number;
  /** What it is (`ELF executable for linux x86_64`). */
  what: string;
  /** Its content is no longer what the run that kept it made (the copy changed since). */
  changed: boolean;
}

export interface FetchOutcome {
  fetched: Fetched[];
  /** What was asked for and not written, each with why. */
  skipped: Array<{ path: string; why: string }>;
}

/**
 * Brings `wanted` (paths or folders relative to the root; none: everything kept) from the copies that keep them,
 * to the same paths under `to` (default: the project root). A file that is already there stays, and is named.
 */
export async function fetchKept(
  ctx: Context,
  opts: { workers: readonly Worker[]; root: string; wanted: readonly string[]; to?: string },
): Promise<FetchOutcome> {
  const kept = keptOutputs(ctx, opts.workers, opts.root);
  const out: FetchOutcome = { fetched: [], skipped: [] };
  const under = (p: string, w: string) => w === '' || p === w || p.startsWith(`${w}/`);
  const chosen = opts.wanted.length === 0 ? kept : kept.filter((k) => opts.wanted.some((w) => under(k.path, w)));
  for (const w of opts.wanted)
    if (!kept.some((k) => under(k.path, w)))
      out.skipped.push({ path: w || '.', why: 'no worker keeps it (only what a run kept there because it does not run here can be fetched)' });
  const base = opts.to ?? opts.root;
  const key = projectKey(opts.root, clientId(ctx, opts.root));
  const copies = new Map<string, KeptOutput[]>();
  for (const k of chosen) copies.set(`${k.worker.name}\0${k.folder}`, [...(copies.get(`${k.worker.name}\0${k.folder}`) ?? []), k]);
  let n = 0;
  for (const group of copies.values()) {
    const { worker, folder } = group[0] as KeptOutput;
    const byPath = new Map(group.map((k) => [k.path, k]));
    const start = (path: string, head: FileHead | undefined): FileSink | undefined => {
      const target = join(base, path);
      const tmp = join(target, '..', `.sparehand-fetch-${process.pid}-${n++}`);
      let fd: number | undefined;
      try {
        const why = head === undefined ? "it is no longer in the worker's copy" : (refusedPath(path) ?? blockedAt(base, path));
        if (why !== undefined) {
          out.skipped.push({ path, why });
          return undefined;
        }
        fd = openSync(tmp, 'wx', 0o600);
      } catch (e) {
        out.skipped.push({ path, why: `it could not be written here (${(e as Error).message})` });
        return undefined;
      }
      const h = head as FileHead;
      let at = 0;
      let failed: string | undefined;
      return {
        write: (piece) => {
          try {
            if (failed === undefined) writeSync(fd as number, piece, 0, piece.length, at);
          } catch (e) {
            failed = (e as Error).message;
          }
          at += piece.length;
        },
        end: (md5) => {
          closeSync(fd as number);
          try {
            if (failed !== undefined) throw new Error(failed);
            chmodSync(tmp, h.mode);
            utimesSync(tmp, h.mtime, h.mtime);
            linkSync(tmp, target);
            const code = nativeCodeOfFile(target);
            out.fetched.push({ path, worker: worker.name, size: h.size, what: code ? describeCode(code) : 'a file', changed: md5 !== byPath.get(path)?.hash });
          } catch (e) {
            out.skipped.push({
              path,
              why: (e as NodeJS.ErrnoException).code === 'EEXIST' ? HERE_ALREADY : `it could not be written here (${(e as Error).message})`,
            });
          } finally {
            unlinkSync(tmp);
          }
        },
      };
    };
    await fetchFiles(
      ctx,
      worker,
      remoteRoot(worker, key, folder),
      group.map((k) => k.path),
      start,
    );
  }
  return out;
}

const HERE_ALREADY = 'a file is already there; it stays (delete it first, or fetch with --to DIR)';

/**
 * Why `path` cannot be written under `base`: something is there already, or a folder on the way is a file or a
 * link (nothing is written through one). Missing folders are made, one level at a time.
 */
function blockedAt(base: string, path: string): string | undefined {
  const parts = path.split('/');
  let at = base;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (st === undefined) mkdirSync(at);
    else if (!st.isDirectory()) return `${at} is not a folder here (a file or a link), and nothing is written through one`;
  }
  return lstatSync(join(base, path), { throwIfNoEntry: false }) === undefined ? undefined : HERE_ALREADY;
}
