// Writing the command's changes here, each on its own: decide.ts says what to do with it, given what is at its
// path now; this looks and writes. A change that cannot be written (permission, a read-only or full disk,
// another file system) becomes a conflict with the reason, and every other change is still applied. Synchronous
// on purpose: a signal that arrives while changes are applied is handled after the last one, so a run never stops
// half applied. Each file is moved into place only if what is there is still what was judged, by one rename over
// the old one (as git and rsync do), so that a kill at any instant leaves the old or the new version in place. Every
// name is reached through its folder opened once (open-folders.ts), never by a path checked earlier: a folder
// swapped for a link during the apply stops it there (one conflict), and nothing lands outside the project.
import { createHash } from 'node:crypto';
import {
  type Stats,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fstatSync,
  futimesSync,
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
import { basename, dirname, join } from 'node:path';
import { type Change, fileTime } from '../remote/change.js';
import { caseTwins } from './case-twin.js';
import { type ConflictKind, type ConflictPlace, type Decision, type Here, type Known, decide } from './decide.js';
import { SPECIAL_BITS } from './guard.js';
import { FolderMoved, type Folders, type Reach, lstatOrUndefined, openFolders, openOne } from './open-folders.js';

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
  /** What sparehand knows of a change's path (decide.ts Known, but for the case twin: case-twin.ts, with the names here). */
  known: (c: Change) => Omit<Known, 'caseTwin'>;
  /** Where the worker's copy is, for lines about what stays there (`box:~/.cache/…/0`). */
  there: string;
  /** Prints a path safely in a line. */
  printable: (path: string) => string;
  /** How names are reached through opened folders (open-folders.ts); by default the best this system has. Tests: a Mac's way, on Linux. */
  reach?: Reach;
}

const typeOf = (st: Stats): Here['kind'] => (st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : 'other');

/** md5 of a local file's content or a link's target (as the worker hashes them). */
export function localHash(path: string, st: Stats): string {
  const h = createHash('md5');
  if (st.isSymbolicLink()) return h.update(readlinkSync(path, { encoding: 'buffer' })).digest('hex');
  // Never through a link or onto a FIFO put there since the lstat: the file that was judged, or an error.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!sameFile(fstatSync(fd), st)) throw Object.assign(new Error('it changed while it was read'), { code: 'ECHANGED' });
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;
/** Still the file that was judged: the same inode, mtime and size (not ctime: a link or rename changes it). */
const unchanged = (now: Stats, seen: Stats) => now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && now.size === seen.size;
/** `dir/name` as folder and name ('' for the root). */
const split = (path: string): [string, string] => {
  const i = path.lastIndexOf('/');
  return i < 0 ? ['', path] : [path.slice(0, i), path.slice(i + 1)];
};

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
  // (Where names are reached from inside their folder, the working folder changes: it is set back at the end.)
  const was = process.cwd();
  const back = () => {
    try {
      if (process.cwd() !== was) process.chdir(was);
    } catch {
      process.chdir(was);
    }
  };
  let folders: Folders;
  try {
    folders = openFolders(opts.root, opts.reach);
  } catch (e) {
    out.conflicts.push({ kind: 'no-root', path: '.', detail: `the project folder could not be opened (${errnoText(e)})`, there: opts.there });
    return out;
  }
  let saving: Folders | undefined;
  let scratch: { path: string; at: string; close: () => void } | undefined;
  try {
    return applyAll(changes, opts, out, folders, {
      saving: () => (saving ??= openFolders(opts.root, opts.reach)),
      scratch: () => {
        if (scratch === undefined) {
          const path = opts.scratch();
          scratch = { path, ...openOne(path, opts.reach) };
        }
        return scratch;
      },
    });
  } finally {
    folders.close();
    saving?.close();
    scratch?.close();
    back();
  }
}

interface Opened {
  /** The folders the conflicts folder is written through. */
  saving: () => Folders;
  /** The scratch folder (where staged content is), opened once: its path and the place names in it are reached through. */
  scratch: () => { path: string; at: string };
}

function applyAll(changes: readonly Change[], opts: ApplyOptions, out: Applied, folders: Folders, opened: Opened): Applied {
  let n = 0;
  const scratchAt = () => opened.scratch().at;

  /** Where `path`'s entry is reached through its opened folder, or why it cannot be (`make`: missing folders are made). */
  const entry = (path: string, make: boolean): string | 'missing' | 'blocked' => {
    const [dir, name] = split(path);
    const f = folders.folder(dir, make);
    return f === 'missing' || f === 'blocked' ? f : join(f, name);
  };

  /** Where a staged file is reached: through the scratch folder opened, when it is there. */
  const stagedAt = (c: Change): string => {
    const staged = c.staged as string;
    const s = opened.scratch();
    return dirname(staged) === s.path ? join(s.at, basename(staged)) : staged;
  };

  const hereOf = (c: Change): { here: Here; st: Stats | undefined; at: string | undefined } => {
    const at = entry(c.path, false);
    // A missing folder above is nothing here, not a block.
    if (at === 'missing') return { here: { kind: 'absent' }, st: undefined, at: undefined };
    if (at === 'blocked') return { here: { kind: 'blocked' }, st: undefined, at: undefined };
    const st = lstatOrUndefined(at);
    if (st === undefined) return { here: { kind: 'absent' }, st, at };
    const kind = typeOf(st);
    return { here: { kind, hash: kind === c.type && (kind === 'f' || kind === 'l') ? localHash(at, st) : undefined }, st, at };
  };

  /** Keeps the worker's version of `c` where the user finds it; returns that place (relative to root). */
  const save = (c: Change): string | undefined => {
    if (c.type === 'd' || (c.type === 'f' && c.staged === undefined)) return undefined;
    const base = opts.conflictsDir();
    if (base === undefined) return undefined;
    const [dir, name] = split(c.path);
    // Made one level at a time through folders opened, never through a link.
    const f = opened.saving().folder(dir === '' ? base : `${base}/${dir}`, true);
    if (f === 'missing' || f === 'blocked') throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    let chosen = name;
    for (let i = 2; lstatOrUndefined(join(f, chosen)) !== undefined; i++) chosen = `${name}~${i}`;
    if (c.type === 'l') symlinkSync(c.target, join(f, chosen));
    else renameSync(stagedAt(c), join(f, chosen));
    if (c.type === 'f') delete c.staged;
    return join(base, dir, chosen);
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

  /** A name for something of sparehand's beside `at` (in the same folder, so on the same file system). */
  const beside = (at: string) => join(dirname(at), `.sparehand-${process.pid}-${n++}`);

  /** Moves the local entry at `at` aside if it is still the one judged (`seen`); where it went, or undefined (then it stays). */
  const takeAway = (at: string, seen: Stats): string | undefined => {
    let aside = join(scratchAt(), `aside-${n++}`);
    try {
      renameSync(at, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      // A folder on another file system (a mount in the project): aside within it.
      aside = beside(at);
      renameSync(at, aside);
    }
    if (unchanged(lstatSync(aside), seen)) return aside;
    if (lstatOrUndefined(at) === undefined) renameSync(aside, at);
    return undefined;
  };

  /**
   * A second name for the file at `at` while it is replaced, if it is still the one judged (`seen`): a hard link,
   * so that the rename over it leaves nothing to lose and an edit made in place meanwhile is seen (a copy where
   * the file system has no hard links). Undefined when it changed.
   */
  const keepAside = (at: string, seen: Stats): { path: string; linked: boolean } | undefined => {
    let aside = join(scratchAt(), `aside-${n++}`);
    let linked = true;
    try {
      try {
        linkSync(at, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        aside = beside(at);
        linkSync(at, aside);
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw e;
      linked = false;
      aside = beside(at);
      copyFileSync(at, aside, constants.COPYFILE_EXCL);
    }
    const now = lstatSync(linked ? aside : at);
    if (unchanged(now, seen)) return { path: aside, linked };
    unlinkSync(aside);
    return undefined;
  };

  /** The file's mode as it may be here: no setuid, setgid or sticky bit (one note when there was one). */
  const modeOf = (c: Change): number => {
    if (c.mode & SPECIAL_BITS) out.notes.push(`${opts.printable(c.path)} came back without its setuid, setgid or sticky bit`);
    return c.mode & 0o777;
  };

  /** The worker's version of `c` with its mode and mtime, in the scratch folder: the path to move into place (`copy`: it is not the staged file). */
  const ready = (c: Change): { from: string; copy: boolean } => {
    if (c.type === 'l') {
      const from = join(scratchAt(), `link-${n++}`);
      symlinkSync(c.target, from);
      lutimesSync(from, fileTime(c.mtime), fileTime(c.mtime));
      return { from, copy: true };
    }
    const staged = stagedAt(c);
    // Through the staged file opened, never a link put in its place (a mode set on a file outside the project).
    const fd = openSync(staged, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) throw Object.assign(new Error('its staged content is not a file'), { code: 'EINVAL' });
      fchmodSync(fd, modeOf(c));
      futimesSync(fd, fileTime(c.mtime), fileTime(c.mtime));
    } finally {
      closeSync(fd);
    }
    return { from: staged, copy: false };
  };

  /** The worker's version made again beside `at` (another file system than the scratch folder's: a mount inside the project). */
  const copyBeside = (c: Change, at: string, r: { from: string; copy: boolean }): { from: string; copy: boolean } => {
    const to = beside(at);
    if (c.type === 'l') {
      unlinkOrNot(r.from);
      symlinkSync(c.target, to);
      lutimesSync(to, fileTime(c.mtime), fileTime(c.mtime));
    } else {
      copyFileSync(stagedAt(c), to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      utimesSync(to, fileTime(c.mtime), fileTime(c.mtime));
    }
    return { from: to, copy: true };
  };

  const done = (c: Change, r: { from: string; copy: boolean }) => {
    if (c.type !== 'f') return;
    if (r.copy) unlinkSync(stagedAt(c));
    delete c.staged;
  };

  /** Puts the worker's version at `at` where nothing is (never replaces anything): false when something is there. */
  const place = (c: Change, at: string): boolean => {
    try {
      if (c.type === 'l') {
        symlinkSync(c.target, at);
        lutimesSync(at, fileTime(c.mtime), fileTime(c.mtime));
        return true;
      }
      let r = ready(c);
      try {
        linkSync(r.from, at);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        r = copyBeside(c, at, r);
        try {
          linkSync(r.from, at);
        } finally {
          unlinkSync(r.from);
        }
      }
      if (!r.copy) unlinkSync(r.from);
      done(c, r);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  };

  /** Puts the worker's version at `at` by one rename over what is there (all or nothing). */
  const replace = (c: Change, at: string): void => {
    let r = ready(c);
    try {
      try {
        renameSync(r.from, at);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        r = copyBeside(c, at, r);
        renameSync(r.from, at);
      }
    } catch (e) {
      if (r.copy) unlinkOrNot(r.from);
      throw e;
    }
    done(c, r);
  };

  /** The names in a folder here, for the case twins (case-twin.ts): none where it is missing, blocked or unreadable. */
  const namesHere = (folder: string): string[] | undefined => {
    try {
      const f = folders.folder(folder, false);
      return f === 'missing' || f === 'blocked' ? undefined : readdirSync(f);
    } catch (e) {
      if (e instanceof FolderMoved) throw e;
      return undefined;
    }
  };
  const twins = caseTwins();
  const twinOf = (c: Change): string | undefined => (c.op === 'C' && opts.foldsCase() ? twins(c, namesHere) : undefined);

  /** Sets mtime and mode on the file judged (opened without following a link; not when it changed meanwhile). */
  const touch = (c: Change, at: string, seen: Stats): boolean => {
    let fd: number;
    try {
      fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EACCES') throw e;
      // A file its owner may not read: by its name, right after checking it is still the one judged.
      if (!unchanged(lstatSync(at), seen) || !lstatSync(at).isFile()) return false;
      chmodSync(at, modeOf(c));
      utimesSync(at, fileTime(c.mtime), fileTime(c.mtime));
      return true;
    }
    try {
      if (!unchanged(fstatSync(fd), seen)) return false;
      fchmodSync(fd, modeOf(c));
      futimesSync(fd, fileTime(c.mtime), fileTime(c.mtime));
      return true;
    } finally {
      closeSync(fd);
    }
  };

  const act = (c: Change, d: Decision, st: Stats | undefined, at: string | undefined): void => {
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
      case 'mkdir': {
        const to = entry(c.path, true);
        if (to === 'missing' || to === 'blocked') return conflict('blocked', c, false);
        mkdirSync(to);
        out.outcomes.set(c.index, 'applied');
        return;
      }
      case 'rmdir':
        // Only an empty real folder: what is still in it is here only (ignored files, or files kept above).
        try {
          rmdirSync(at as string);
          out.outcomes.set(c.index, 'applied');
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw e;
          out.outcomes.set(c.index, 'skipped');
        }
        return;
      case 'touch':
        // (Changed here meanwhile: left alone, as a file changed here before the run would be.)
        if (!touch(c, at as string, st as Stats)) return void out.outcomes.set(c.index, 'skipped');
        out.touched++;
        out.outcomes.set(c.index, 'applied');
        return;
      case 'delete': {
        const aside = takeAway(at as string, st as Stats);
        if (aside === undefined) return conflict('delete-kept', c, false);
        unlinkSync(aside);
        return count(c);
      }
      case 'write': {
        if (!d.replace) {
          const to = entry(c.path, true);
          if (to === 'missing' || to === 'blocked') return conflict('blocked', c, true);
          return place(c, to) ? count(c) : conflict('exists-here', c, true);
        }
        // Yours, kept by a second name until the worker's is renamed over it: at every instant one of them is at its path.
        const kept = keepAside(at as string, st as Stats);
        if (kept === undefined) return conflict('changed-here', c, true);
        try {
          replace(c, at as string);
        } catch (e) {
          unlinkOrNot(kept.path);
          throw e;
        }
        if (kept.linked && !unchanged(lstatSync(kept.path), st as Stats)) {
          // Written in place in the instant before the rename: yours goes back, the worker's stays there.
          renameSync(kept.path, at as string);
          return conflict('changed-here', c, false);
        }
        unlinkSync(kept.path);
        return count(c);
      }
    }
  };

  const knownTwin = new Map<number, string>();
  const knownRefusal = new Map<number, string>();
  const knownForeign = new Map<number, string>();
  const deletions = changes.filter((c) => c.op === 'D').sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
  const others = changes.filter((c) => c.op !== 'D').sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const all = [...deletions, ...others];
  for (let i = 0; i < all.length; i++) {
    const c = all[i] as Change;
    folders.next();
    const known: Known = { ...opts.known(c) };
    if (known.refused) knownRefusal.set(c.index, known.refused);
    if (known.foreign !== undefined) knownForeign.set(c.index, known.foreign);
    try {
      if (known.refused !== undefined) {
        // Never looked for here: a refused path may lead anywhere.
        act(c, decide(c, { kind: 'absent' }, known), undefined, undefined);
        continue;
      }
      const twin = c.problem === undefined ? twinOf(c) : undefined;
      if (twin !== undefined) {
        known.caseTwin = twin;
        knownTwin.set(c.index, twin);
      }
      const { here, st, at } = hereOf(c);
      act(c, decide(c, here, known), st, at);
    } catch (e) {
      if (e instanceof FolderMoved) {
        // Something here is moving the project's folders while they are written: nothing more is written.
        out.conflicts.push({ kind: 'moved-here', path: e.path, there: opts.there });
        for (const rest of all.slice(i)) out.outcomes.set(rest.index, 'conflict');
        break;
      }
      conflict('not-written', c, true, errnoText(e));
    }
  }
  return out;
}

function unlinkOrNot(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* never made */
  }
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
