// Writing the command's changes here, each on its own: decide.ts says what to do with it, given what is at its
// path now; this looks and writes. A change that cannot be written (permission, a read-only or full disk,
// another file system) becomes a conflict with the reason, and every other change is still applied. Synchronous
// on purpose: a signal that arrives while changes are applied is handled after the last one, so a run never stops
// half applied. Each file is moved into place only if what is there is still what was judged.
import { createHash } from 'node:crypto';
import {
  type Stats,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  linkSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Change } from './change.js';
import { type ConflictKind, type ConflictPlace, type Decision, type Here, type Known, decide } from './decide.js';
import { SPECIAL_BITS } from './guard.js';

export interface Conflict extends ConflictPlace {
  kind: ConflictKind;
  path: string;
}

/** How each change ended, for the ancestor (ancestor.ts): `kept` stayed on the worker (decide.ts 'keep'). */
export type Outcome = 'applied' | 'same' | 'conflict' | 'skipped' | 'kept';

export interface Applied {
  /** Files, links and deletions applied here (folders and touches not counted). */
  files: number;
  /** Files only touched (mtime, mode). */
  touched: number;
  /** Bytes of content applied, and by folder (two levels deep). */
  bytes: number;
  byFolder: Map<string, number>;
  conflicts: Conflict[];
  /** Files kept on the worker: native code of its platform, which does not run here (with the platform's name). */
  kept: Array<{ path: string; size: number; platform: string }>;
  /** Other things to say (a bit not applied). */
  notes: string[];
  outcomes: Map<number, Outcome>;
}

export interface ApplyOptions {
  root: string;
  /** Makes (once) and returns the folder, relative to root, that keeps the worker's versions of conflicts; undefined when there is none. */
  conflictsDir: () => string | undefined;
  /** A scratch folder on the same file system as root (for moving a file aside). */
  scratch: () => string;
  /** Whether this file system treats names that differ only in case as one (a Mac's, by default). */
  foldsCase: () => boolean;
  /** What sparehand knows of a change's path (decide.ts Known, but for the case twin, found here). */
  known: (c: Change) => Omit<Known, 'caseTwin'>;
  /** Where the worker's copy is, for lines about what stays there (`box:~/.cache/…/0`). */
  there: string;
  /** Prints a path safely in a line. */
  printable: (path: string) => string;
}

const typeOf = (st: Stats): Here['kind'] => (st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : 'other');

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
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

const errnoText = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'not permitted',
    EROFS: 'a read-only file system',
    ENOSPC: 'no space left on this disk',
    EDQUOT: 'over the disk quota',
    EXDEV: 'another file system',
    ENAMETOOLONG: 'the name is too long',
    EISDIR: 'a folder is there',
  };
  return code ? (words[code] ?? code) : String(e);
};

export function applyChanges(changes: readonly Change[], opts: ApplyOptions): Applied {
  const out: Applied = { files: 0, touched: 0, bytes: 0, byFolder: new Map(), conflicts: [], kept: [], notes: [], outcomes: new Map() };
  const realDirs = new Set<string>(['.']);
  let n = 0;
  const abs = (p: string) => join(opts.root, p);

  /** Every folder above `path` is a real folder here (never a link); `make` creates missing ones. */
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

  const hereOf = (c: Change): { here: Here; st: Stats | undefined } => {
    if (!parentsOk(c.path, false)) {
      // A missing folder above is nothing here, not a block.
      const parts = c.path.split('/').slice(0, -1);
      for (let i = 1; i <= parts.length; i++) {
        const st = lstatOrUndefined(abs(parts.slice(0, i).join('/')));
        if (st === undefined) return { here: { kind: 'absent' }, st: undefined };
        if (!st.isDirectory()) return { here: { kind: 'blocked' }, st: undefined };
      }
    }
    const st = lstatOrUndefined(abs(c.path));
    if (st === undefined) return { here: { kind: 'absent' }, st };
    const kind = typeOf(st);
    return { here: { kind, hash: kind === c.type && (kind === 'f' || kind === 'l') ? localHash(abs(c.path), st) : undefined }, st };
  };

  /** A folder under the conflicts folder, made one level at a time (never through a link). */
  const saveDir = (base: string, rel: string): string => {
    let at = '';
    for (const part of [...base.split('/'), ...rel.split('/').slice(0, -1)]) {
      at = at ? join(at, part) : part;
      const st = lstatOrUndefined(abs(at));
      if (st === undefined) mkdirSync(abs(at));
      else if (!st.isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    }
    return at;
  };

  /** Keeps the worker's version of `c` where the user finds it; returns that place (relative to root). */
  const save = (c: Change): string | undefined => {
    if (c.type === 'd' || (c.type === 'f' && c.staged === undefined)) return undefined;
    const base = opts.conflictsDir();
    if (base === undefined) return undefined;
    saveDir(base, c.path);
    const rel = join(base, c.path);
    let target = rel;
    for (let i = 2; lstatOrUndefined(abs(target)) !== undefined; i++) target = `${rel}~${i}`;
    if (c.type === 'l') symlinkSync(c.target, abs(target));
    else renameSync(c.staged as string, abs(target));
    if (c.type === 'f') delete c.staged;
    return target;
  };

  const conflict = (kind: ConflictKind, c: Change, keep: boolean, detail?: string) => {
    let saved: string | undefined;
    if (keep) {
      try {
        saved = save(c);
      } catch {
        saved = undefined;
      }
    }
    const there = saved === undefined && kind !== 'refused' && kind !== 'special' && kind !== 'delete-kept' ? opts.there : undefined;
    out.conflicts.push({ kind, path: c.path, ...(saved ? { saved } : {}), ...(detail ? { detail } : {}), ...(there ? { there } : {}) });
    out.outcomes.set(c.index, 'conflict');
  };

  const count = (c: Change) => {
    out.outcomes.set(c.index, 'applied');
    out.files++;
    if (c.type !== 'f' || c.op === 'D') return;
    out.bytes += c.size;
    const folder = c.path.split('/').slice(0, -1).slice(0, 2).join('/') || '.';
    out.byFolder.set(folder, (out.byFolder.get(folder) ?? 0) + c.size);
  };

  /** Moves the local entry aside if it is still the one judged (`seen`); where it went, or undefined (then it stays). */
  const takeAway = (path: string, seen: Stats): string | undefined => {
    let aside = join(opts.scratch(), `aside-${n++}`);
    try {
      renameSync(abs(path), aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      // A folder on another file system (a mount in the project): aside within it.
      aside = join(dirname(abs(path)), `.sparehand-aside-${process.pid}-${n++}`);
      renameSync(abs(path), aside);
    }
    const now = lstatSync(aside);
    // (Not ctime: the rename itself changes it.)
    if (now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && now.size === seen.size) return aside;
    if (lstatOrUndefined(abs(path)) === undefined) renameSync(aside, abs(path));
    return undefined;
  };

  /** The file's mode as it may be here: no setuid, setgid or sticky bit (one note when there was one). */
  const modeOf = (c: Change): number => {
    if (c.mode & SPECIAL_BITS) out.notes.push(`${opts.printable(c.path)} came back without its setuid, setgid or sticky bit`);
    return c.mode & 0o777;
  };

  /** Puts the worker's version at `path` where nothing is (never replaces anything): false when something is there. */
  const place = (c: Change): boolean => {
    const to = abs(c.path);
    try {
      if (c.type === 'l') {
        symlinkSync(c.target, to);
        lutimesSync(to, c.mtime, c.mtime);
        return true;
      }
      const staged = c.staged as string;
      chmodSync(staged, modeOf(c));
      utimesSync(staged, c.mtime, c.mtime);
      try {
        linkSync(staged, to);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        // Another file system (a mount inside the project): a copy beside the target, linked into place.
        const beside = join(dirname(to), `.sparehand-${process.pid}-${n++}`);
        try {
          copyFileSync(staged, beside, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
          utimesSync(beside, c.mtime, c.mtime);
          linkSync(beside, to);
        } finally {
          try {
            unlinkSync(beside);
          } catch {
            /* the copy never started */
          }
        }
      }
      unlinkSync(staged);
      delete c.staged;
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
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
  const seenCreated = new Map<string, string>();
  /** New folders refused for their case: what the command put in them is refused too (never merged). */
  const caseFolders = new Map<string, string>();
  const underCaseFolder = (path: string): string | undefined => {
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
      const twin = caseFolders.get(path.slice(0, i));
      if (twin !== undefined) return `${twin}${path.slice(i)}`;
    }
    return undefined;
  };
  const twinOf = (c: Change): string | undefined => {
    if (c.op !== 'C' || !opts.foldsCase()) return undefined;
    const inside = underCaseFolder(c.path);
    const lower = c.path.toLowerCase();
    const twin = inside ?? caseTwin(c.path) ?? (seenCreated.has(lower) && seenCreated.get(lower) !== c.path ? seenCreated.get(lower) : undefined);
    if (inside === undefined) seenCreated.set(lower, c.path);
    if (twin !== undefined && c.type === 'd') caseFolders.set(c.path, twin);
    return twin;
  };

  const act = (c: Change, d: Decision, st: Stats | undefined): void => {
    switch (d.act) {
      case 'skip':
        out.outcomes.set(c.index, d.why === 'same' ? 'same' : 'skipped');
        return;
      case 'fetch':
        out.outcomes.set(c.index, 'skipped');
        return;
      case 'keep':
        out.kept.push({ path: c.path, size: c.size, platform: knownForeign.get(c.index) ?? '' });
        out.outcomes.set(c.index, 'kept');
        return;
      case 'conflict':
        return conflict(d.kind, c, d.save, d.kind === 'case' ? knownTwin.get(c.index) : d.kind === 'refused' ? knownRefusal.get(c.index) : c.problem);
      case 'mkdir':
        parentsOk(c.path, true);
        mkdirSync(abs(c.path));
        realDirs.add(c.path);
        out.outcomes.set(c.index, 'applied');
        return;
      case 'rmdir':
        // Only an empty real folder: what is still in it is here only (ignored files, or files kept above).
        try {
          rmdirSync(abs(c.path));
          realDirs.delete(c.path);
          out.outcomes.set(c.index, 'applied');
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
          out.outcomes.set(c.index, 'skipped');
        }
        return;
      case 'touch':
        chmodSync(abs(c.path), modeOf(c));
        utimesSync(abs(c.path), c.mtime, c.mtime);
        out.touched++;
        out.outcomes.set(c.index, 'applied');
        return;
      case 'delete': {
        const aside = takeAway(c.path, st as Stats);
        if (aside === undefined) return conflict('delete-kept', c, false);
        unlinkSync(aside);
        return count(c);
      }
      case 'write': {
        if (!d.replace) {
          parentsOk(c.path, true);
          return place(c) ? count(c) : conflict('exists-here', c, true);
        }
        const aside = takeAway(c.path, st as Stats);
        if (aside === undefined) return conflict('changed-here', c, true);
        let placed: boolean;
        try {
          placed = place(c);
        } catch (e) {
          // Yours goes back where it was (nothing can have taken its place but what the write left: nothing).
          if (lstatOrUndefined(abs(c.path)) === undefined) renameSync(aside, abs(c.path));
          throw e;
        }
        if (placed) {
          unlinkSync(aside);
          return count(c);
        }
        // Something new appeared in the instant between: it stays, and so does the worker's version.
        unlinkSync(aside);
        return conflict('changed-here', c, true);
      }
    }
  };

  const knownTwin = new Map<number, string>();
  const knownRefusal = new Map<number, string>();
  const knownForeign = new Map<number, string>();
  const deletions = changes.filter((c) => c.op === 'D').sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
  const others = changes.filter((c) => c.op !== 'D').sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const c of [...deletions, ...others]) {
    const known: Known = { ...opts.known(c) };
    if (known.refused) knownRefusal.set(c.index, known.refused);
    if (known.foreign !== undefined) knownForeign.set(c.index, known.foreign);
    try {
      const twin = known.refused === undefined && c.problem === undefined ? twinOf(c) : undefined;
      if (twin !== undefined) {
        known.caseTwin = twin;
        knownTwin.set(c.index, twin);
      }
      const { here, st } = hereOf(c);
      act(c, decide(c, here, known), st);
    } catch (e) {
      conflict('not-written', c, true, errnoText(e));
    }
  }
  return out;
}

/** The changes whose content the worker must send before they can be applied (decide.ts 'fetch'). */
export function contentNeeded(changes: readonly Change[], opts: Pick<ApplyOptions, 'root' | 'known'>): number[] {
  const wanted: number[] = [];
  for (const c of changes) {
    if (c.op !== 'T' || c.type !== 'f') continue;
    const known = opts.known(c);
    if (known.sent || known.refused || known.settings) continue;
    const st = lstatOrUndefined(join(opts.root, c.path));
    const here: Here = st === undefined ? { kind: 'absent' } : { kind: typeOf(st), hash: st.isFile() ? localHash(join(opts.root, c.path), st) : undefined };
    if (decide(c, here, known).act === 'fetch') wanted.push(c.index);
  }
  return wanted;
}
