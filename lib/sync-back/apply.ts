// Applying the command's changes here, each only where the local path is still what the worker started from
// (same content as its base, or nothing there for a created path). Anything else is a conflict: the local file
// stays and the worker's version is put where the user finds it. Synchronous on purpose: a signal that arrives
// while changes are applied is handled after the last one, so a run never stops half applied.
import { createHash } from 'node:crypto';
import {
  type Stats, chmodSync, closeSync, linkSync, lstatSync, lutimesSync, mkdirSync, openSync, readSync, readdirSync, readlinkSync,
  renameSync, rmdirSync, symlinkSync, unlinkSync, utimesSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Change } from '../remote/results.js';

export type ConflictKind = 'changed-here' | 'deleted-here' | 'exists-here' | 'delete-kept' | 'case' | 'blocked' | 'not-applied';

export interface Conflict {
  kind: ConflictKind;
  path: string;
  /** Where the worker's version was put, relative to the project root. */
  saved?: string;
  /** For 'case': the name here that differs only in case; for 'not-applied': why. */
  detail?: string;
}

export interface Applied {
  /** Files, links and deletions applied here (folders not counted). */
  files: number;
  /** Bytes of content applied, and by folder (two levels deep). */
  bytes: number;
  byFolder: Map<string, number>;
  conflicts: Conflict[];
}

export interface ApplyOptions {
  root: string;
  /** Makes (once) and returns the folder, relative to root, that keeps the worker's versions of conflicts. */
  conflictsDir: () => string;
  /** A scratch folder on the same file system as root (for moving a file aside). */
  scratch: () => string;
  /** Whether this file system treats names that differ only in case as one (a Mac's, by default). */
  foldsCase: () => boolean;
}

const typeOf = (st: Stats): string => (st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : '?');

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** md5 of a local file's content or a link's target (as the worker hashes them). */
export function localHash(path: string, st: Stats): string {
  const h = createHash('md5');
  if (st.isSymbolicLink()) return h.update(readlinkSync(path, { encoding: 'buffer' })).digest('hex');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/** The local path holds exactly `hash` as a `type` entry (`stats` as looked at, for the move-aside check). */
function holds(abs: string, type: string, hash: string | undefined): Stats | undefined {
  const st = lstatOrUndefined(abs);
  if (!st || typeOf(st) !== type || hash === undefined) return undefined;
  return localHash(abs, st) === hash ? st : undefined;
}

export function applyChanges(changes: readonly Change[], opts: ApplyOptions): Applied {
  const out: Applied = { files: 0, bytes: 0, byFolder: new Map(), conflicts: [] };
  const realDirs = new Set<string>(['.']);
  let n = 0;
  const abs = (p: string) => join(opts.root, p);

  /** Every folder above `path` is a real folder here (never a link: nothing is written through one); `make` creates missing ones. */
  const parentsOk = (path: string, make: boolean): boolean => {
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (realDirs.has(dir)) continue;
      const st = lstatOrUndefined(abs(dir));
      if (st === undefined && make) mkdirSync(abs(dir));
      else if (!st?.isDirectory()) return false;
      realDirs.add(dir);
    }
    return true;
  };

  /** Keeps the worker's version of `c` where the user finds it; returns that place. */
  const save = (c: Change): string | undefined => {
    if (c.type === 'd') return undefined;
    const rel = join(opts.conflictsDir(), c.path);
    let target = rel;
    for (let i = 2; lstatOrUndefined(abs(target)) !== undefined; i++) target = `${rel}~${i}`;
    mkdirSync(dirname(abs(target)), { recursive: true });
    if (c.type === 'l') symlinkSync(c.target, abs(target));
    else if (c.staged !== undefined) renameSync(c.staged, abs(target));
    return target;
  };

  const conflict = (kind: ConflictKind, c: Change, detail?: string) => {
    const saved = kind === 'delete-kept' || kind === 'not-applied' ? undefined : save(c);
    out.conflicts.push({ kind, path: c.path, ...(saved ? { saved } : {}), ...(detail ? { detail } : {}) });
  };

  const count = (c: Change) => {
    out.files++;
    if (c.type !== 'f' || c.op === 'T' || c.op === 'D') return;
    out.bytes += c.size;
    const folder = c.path.split('/').slice(0, -1).slice(0, 2).join('/') || '.';
    out.byFolder.set(folder, (out.byFolder.get(folder) ?? 0) + c.size);
  };

  /**
   * Moves the local entry out of the way, provided it is still the one judged (`seen`): an editor that saved it
   * in between must not lose its write. Returns where it went, or undefined when it changed (then it stays).
   */
  const takeAway = (path: string, seen: Stats): string | undefined => {
    const aside = join(opts.scratch(), `aside-${n++}`);
    renameSync(abs(path), aside);
    const now = lstatSync(aside);
    // (Not ctime: the rename itself changes it.)
    if (now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && now.size === seen.size) return aside;
    if (lstatOrUndefined(abs(path)) === undefined) renameSync(aside, abs(path));
    return undefined;
  };

  /** Puts the worker's version of a file or link at `path` where nothing is (never replaces anything). */
  const place = (c: Change): boolean => {
    try {
      if (c.type === 'l') symlinkSync(c.target, abs(c.path));
      else {
        const staged = c.staged;
        if (staged === undefined) return false;
        chmodSync(staged, c.mode & 0o7777);
        utimesSync(staged, c.mtime, c.mtime);
        linkSync(staged, abs(c.path));
        unlinkSync(staged);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    if (c.type === 'l') lutimesSync(abs(c.path), c.mtime, c.mtime);
    return true;
  };

  /** Names in `path`'s folder that differ from its own name only in case. */
  const caseTwin = (path: string): string | undefined => {
    const name = path.split('/').at(-1) as string;
    const folder = dirname(path);
    const lower = name.toLowerCase();
    let names: string[];
    try {
      names = readdirSync(abs(folder));
    } catch {
      return undefined;
    }
    const twin = names.find((x) => x !== name && x.toLowerCase() === lower);
    return twin === undefined ? undefined : folder === '.' ? twin : `${folder}/${twin}`;
  };

  const deletions = changes.filter((c) => c.op === 'D').sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
  const others = changes.filter((c) => c.op !== 'D').sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const seenCreated = new Map<string, string>();
  /** New folders refused for their case, by path: what the command put in them is refused too (never merged). */
  const caseFolders = new Map<string, string>();
  const underCaseFolder = (path: string): string | undefined => {
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
      const twin = caseFolders.get(path.slice(0, i));
      if (twin !== undefined) return `${twin}${path.slice(i)}`;
    }
    return undefined;
  };

  for (const c of deletions) {
    if (c.problem || !parentsOk(c.path, false)) continue;
    if (c.type === 'd') {
      // Only an empty real folder: what is still in it is here only (ignored files, or files kept above).
      if (lstatOrUndefined(abs(c.path))?.isDirectory()) {
        try {
          rmdirSync(abs(c.path));
          realDirs.delete(c.path);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
      }
      continue;
    }
    const local = lstatOrUndefined(abs(c.path));
    if (local === undefined) continue;
    const seen = holds(abs(c.path), c.type, c.base);
    const aside = seen && takeAway(c.path, seen);
    if (aside) {
      unlinkSync(aside);
      count(c);
    } else conflict('delete-kept', c);
  }

  for (const c of others) {
    if (c.problem) {
      out.conflicts.push({ kind: 'not-applied', path: c.path, detail: c.problem });
      continue;
    }
    const make = c.op === 'C';
    if (!parentsOk(c.path, make)) {
      conflict(make ? 'blocked' : 'deleted-here', c);
      continue;
    }
    if (c.op === 'C') {
      if (opts.foldsCase()) {
        const lower = c.path.toLowerCase();
        const inside = underCaseFolder(c.path);
        const twin = inside ?? caseTwin(c.path) ?? (seenCreated.has(lower) && seenCreated.get(lower) !== c.path ? seenCreated.get(lower) : undefined);
        if (inside === undefined) seenCreated.set(lower, c.path);
        if (twin !== undefined) {
          if (c.type === 'd') caseFolders.set(c.path, twin);
          conflict('case', c, twin);
          continue;
        }
      }
      const local = lstatOrUndefined(abs(c.path));
      if (c.type === 'd') {
        if (local === undefined) mkdirSync(abs(c.path));
        else if (!local.isDirectory()) conflict('blocked', c);
        if (!local || local.isDirectory()) realDirs.add(c.path);
        continue;
      }
      if (local === undefined && place(c)) count(c);
      else if (holds(abs(c.path), c.type, c.hash) === undefined) conflict('exists-here', c);
      continue;
    }
    // M or T: the local entry must still be the base.
    const local = lstatOrUndefined(abs(c.path));
    if (local === undefined) {
      if (c.op === 'M') conflict('deleted-here', c);
      continue;
    }
    const seen = holds(abs(c.path), c.type, c.base);
    if (c.op === 'T') {
      if (seen && c.type === 'f') {
        chmodSync(abs(c.path), c.mode & 0o7777);
        utimesSync(abs(c.path), c.mtime, c.mtime);
        count(c);
      }
      continue;
    }
    if (seen === undefined) {
      if (holds(abs(c.path), c.type, c.hash) === undefined) conflict('changed-here', c);
      continue;
    }
    const aside = takeAway(c.path, seen);
    if (aside === undefined) {
      conflict('changed-here', c);
      continue;
    }
    if (place(c)) {
      unlinkSync(aside);
      count(c);
    } else {
      // Something new appeared in the instant between: it stays, and so does the worker's version.
      conflict('changed-here', c);
      unlinkSync(aside);
    }
  }
  return out;
}
