// The state of the local tree when the run started, to tell what changed here while the command ran.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_DIRS, DEPENDENCY_DIRS } from '../remote/rsync-args.js';

export interface FileStamp {
  mtimeMs: number;
  size: number;
  ino: number;
}

export type Snapshot = Map<string, FileStamp>;

const SKIP = new Set([...DEPENDENCY_DIRS, ...CACHE_DIRS].filter((d) => !d.slice(0, -1).includes('/')).map((d) => d.slice(0, -1)));

/** Every file and symlink under `root` (relative path → stamp), skipping dependency and cache folders. */
export async function snapshot(root: string): Promise<Snapshot> {
  const out: Snapshot = new Map();
  async function walk(dir: string, rel: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    await Promise.all(
      entries.map(async (e) => {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!SKIP.has(e.name)) await walk(join(dir, e.name), r);
          return;
        }
        const st = await stampOf(join(dir, e.name));
        if (st) out.set(r, st);
      }),
    );
  }
  await walk(root, '');
  return out;
}

/** A file's stamp now, or undefined when it is gone. */
export async function stampOf(path: string): Promise<FileStamp | undefined> {
  try {
    const st = await lstat(path);
    return { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
  } catch {
    return undefined;
  }
}

export const sameStamp = (a: FileStamp | undefined, b: FileStamp | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
