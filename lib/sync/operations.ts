// The apply's operations, one per kind of write (as mutagen's transition.go has one per change it makes): create a
// file, make a link, replace a file or link, set mtime and mode only, delete, make a folder, remove one, keep the
// worker's version of a conflict. apply.ts looks and decide.ts decides; each operation is given the entry judged
// (`seen`: what was there when it was looked at) and checks right before it writes that it is still that one, so a
// file changed here meanwhile is never replaced or deleted: it returns what it did, or the conflict it found. An
// error it meets (permission, no space, another file system) is thrown: the apply makes it a conflict. Names are
// reached only through folders opened once (open-folders.ts); a file is replaced by one rename over it, its old
// version first given a second name, so a kill at any instant leaves the old or the new version in place.
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
  readlinkSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Change, fileTime } from '../remote/change.js';
import { asideName } from '../state/own-folder.js';
import type { ConflictKind } from './decide.js';
import { SPECIAL_BITS } from './guard.js';
import { type Folders, lstatOrUndefined } from './open-folders.js';

/** What an operation did with its change. */
export type Result =
  /** `counts`: a file, link or deletion applied (counted with its bytes), a touch, or neither (a folder). */
  | { outcome: 'applied'; counts: 'file' | 'touch' | 'folder' }
  | { outcome: 'skipped' }
  /** `save`: the worker's version is to be kept where the user finds it; `yours`: where your version was kept (relative to root) when it could not stay at its path. */
  | { outcome: 'conflict'; kind: ConflictKind; save: boolean; yours?: string };

/** What the operations write through. */
export interface Places {
  folders: Folders;
  /** The scratch folder (where staged content is), opened once: its path and the place names in it are reached through. */
  scratch: () => { path: string; at: string };
  /** The folders the conflicts folder is written through. */
  saving: () => Folders;
  /** Makes (once) and returns the folder, relative to root, that keeps the worker's versions of conflicts; undefined when there is none. */
  conflictsDir: () => string | undefined;
  /** Told of each file that comes back without its setuid, setgid or sticky bit (one line says so). */
  withoutSpecialBits: (c: Change) => void;
  /** The calls the races turn on, node:fs's by default (tests: a file system without hard links, a write in the instant before one). */
  fs?: Partial<Calls>;
}

/** The file-system calls an operation may be given instead of node:fs's. */
export interface Calls {
  linkSync: (existing: string, name: string) => void;
  renameSync: (from: string, to: string) => void;
}

/** The entry at a change's path as it was judged: where it is reached (through its opened folder) and its lstat. */
export interface Seen {
  at: string;
  st: Stats;
}

export type Operations = ReturnType<typeof operations>;

/** Still the file that was judged: the same inode, mtime and size (not ctime: a link or rename changes it). */
export const unchanged = (now: Stats, seen: Stats) => now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && now.size === seen.size;

/** `dir/name` as folder and name ('' for the root). */
export const split = (path: string): [string, string] => {
  const i = path.lastIndexOf('/');
  return i < 0 ? ['', path] : [path.slice(0, i), path.slice(i + 1)];
};

const applied = (counts: 'file' | 'touch' | 'folder'): Result => ({ outcome: 'applied', counts });
const conflict = (kind: ConflictKind, save: boolean): Result => ({ outcome: 'conflict', kind, save });

export function operations(places: Places) {
  const { folders } = places;
  const link = places.fs?.linkSync ?? linkSync;
  const rename = places.fs?.renameSync ?? renameSync;
  let n = 0;
  const scratchAt = () => places.scratch().at;

  /** Where `path`'s entry is reached through its opened folder, or why it cannot be (`make`: missing folders are made). */
  const entry = (path: string, make: boolean): string | 'missing' | 'blocked' => {
    const [dir, name] = split(path);
    const f = folders.folder(dir, make);
    return f === 'missing' || f === 'blocked' ? f : join(f, name);
  };

  /** Where a staged file is reached: through the scratch folder opened, when it is there. */
  const stagedAt = (c: Change): string => {
    const staged = c.staged as string;
    const s = places.scratch();
    return dirname(staged) === s.path ? join(s.at, basename(staged)) : staged;
  };

  /** A name for something of sparehand's beside `at` (in the same folder, so on the same file system). */
  const beside = (at: string) => join(dirname(at), `.sparehand-${process.pid}-${n++}`);

  /**
   * Moves the local entry at `at` (`c`'s path) aside if it is still the one judged (`seen`): where it went. Else it
   * goes back, or, where something else stands at its path now, it is kept where the user finds it (`yours`: never
   * left in the scratch folder, which goes at the end of the run).
   */
  const takeAway = (c: Change, at: string, seen: Stats): { aside: string } | { yours: string | undefined } => {
    let aside = join(scratchAt(), asideName(n++));
    try {
      rename(at, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      // A folder on another file system (a mount in the project): aside within it.
      aside = beside(at);
      rename(at, aside);
    }
    const now = lstatSync(aside);
    if (unchanged(now, seen)) return { aside };
    // Back by a hard link (a link: made again), which never replaces what was made at the path meanwhile (a rename would).
    try {
      if (now.isSymbolicLink()) symlinkSync(readlinkSync(aside, { encoding: 'buffer' }), at);
      else link(aside, at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Something is there now, or no hard links here (nothing puts it back only where nothing is): kept elsewhere.
      if (code !== 'EEXIST' && !noHardLinks(code)) throw e;
      return { yours: keepYours(c, aside, at) };
    }
    unlinkSync(aside);
    return { yours: undefined };
  };

  /**
   * The first free name for `c`'s path in the conflicts folder (`~2`, `~3`… after an earlier one), its folders made
   * through folders opened, never through a link; `put` puts the version there. That place, relative to root.
   */
  const intoConflicts = (c: Change, base: string, put: (to: string) => void): string => {
    const [dir, name] = split(c.path);
    const f = places.saving().folder(dir === '' ? base : `${base}/${dir}`, true);
    if (f === 'missing' || f === 'blocked') throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    let chosen = name;
    for (let i = 2; lstatOrUndefined(join(f, chosen)) !== undefined; i++) chosen = `${name}~${i}`;
    put(join(f, chosen));
    return join(base, dir, chosen);
  };

  /**
   * Yours, changed here and moved aside (`aside`), where it cannot go back to its path (`at`): kept in the
   * conflicts folder as the worker's versions are, else (no conflicts folder, or `aside` on another file system:
   * a mount) beside its path as `<name>.sparehand-yours`. That place, relative to root.
   */
  const keepYours = (c: Change, aside: string, at: string): string => {
    const base = places.conflictsDir();
    if (base !== undefined) {
      try {
        return intoConflicts(c, base, (to) => rename(aside, to));
      } catch {
        /* kept beside its path instead */
      }
    }
    const [dir, name] = split(c.path);
    let chosen = `${name}.sparehand-yours`;
    for (let i = 2; lstatOrUndefined(join(dirname(at), chosen)) !== undefined; i++) chosen = `${name}.sparehand-yours~${i}`;
    rename(aside, join(dirname(at), chosen));
    return dir === '' ? chosen : `${dir}/${chosen}`;
  };

  /**
   * A second name for the file at `at` while it is replaced, if it is still the one judged (`seen`): a hard link,
   * so that the rename over it leaves nothing to lose and an edit made in place meanwhile is seen. Where the file
   * system has no hard links, a copy, and the file held open (`fd`) so that such an edit is seen all the same (a
   * link: only a copy, as a link is never written in place). Undefined when it changed.
   */
  const keepAside = (at: string, seen: Stats): { path: string; linked: boolean; fd?: number } | undefined => {
    let aside = join(scratchAt(), asideName(n++));
    try {
      try {
        link(at, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        aside = beside(at);
        link(at, aside);
      }
    } catch (e) {
      if (!noHardLinks((e as NodeJS.ErrnoException).code)) throw e;
      aside = beside(at);
      if (seen.isSymbolicLink()) {
        copyFileSync(at, aside, constants.COPYFILE_EXCL);
        if (unchanged(lstatSync(at), seen)) return { path: aside, linked: false };
        unlinkSync(aside);
        return undefined;
      }
      const fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        // The file opened is the one judged, copied from what is open, and still the one at its path.
        if (unchanged(fstatSync(fd), seen)) {
          copyOf(fd, aside);
          if (unchanged(lstatSync(at), seen)) return { path: aside, linked: false, fd };
          unlinkSync(aside);
        }
      } catch (e2) {
        closeSync(fd);
        throw e2;
      }
      closeSync(fd);
      return undefined;
    }
    if (unchanged(lstatSync(aside), seen)) return { path: aside, linked: true };
    unlinkSync(aside);
    return undefined;
  };

  /** The file's mode as it may be here: no setuid, setgid or sticky bit (one note when there was one). */
  const modeOf = (c: Change): number => {
    if (c.mode & SPECIAL_BITS) places.withoutSpecialBits(c);
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

  /** Where a new entry goes (its folders made), or the conflict when a file or a link stands where a folder is needed. */
  const newEntry = (c: Change): string | Result => {
    const to = entry(c.path, true);
    return to === 'missing' || to === 'blocked' ? conflict('blocked', true) : to;
  };

  /** Puts `make`'s result at the new entry where nothing is (never replaces anything): a conflict when something is there. */
  const create = (c: Change, make: (at: string) => void): Result => {
    const to = newEntry(c);
    if (typeof to !== 'string') return to;
    try {
      make(to);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return conflict('exists-here', true);
      throw e;
    }
    return applied('file');
  };

  /** Puts the worker's version at `at` by one rename over what is there (all or nothing). */
  const renameOver = (c: Change, at: string): void => {
    let r = ready(c);
    try {
      try {
        rename(r.from, at);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        r = copyBeside(c, at, r);
        rename(r.from, at);
      }
    } catch (e) {
      if (r.copy) unlinkOrNot(r.from);
      throw e;
    }
    done(c, r);
  };

  return {
    /** A new file, linked into place from its staged content (a copy beside it first across file systems). */
    createFile: (c: Change): Result =>
      create(c, (at) => {
        let r = ready(c);
        try {
          link(r.from, at);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
          r = copyBeside(c, at, r);
          try {
            link(r.from, at);
          } finally {
            unlinkSync(r.from);
          }
        }
        if (!r.copy) unlinkSync(r.from);
        done(c, r);
      }),

    /** A new link, with the worker's mtime. */
    createLink: (c: Change): Result =>
      create(c, (at) => {
        symlinkSync(c.target, at);
        lutimesSync(at, fileTime(c.mtime), fileTime(c.mtime));
      }),

    /** The worker's file or link over yours, if yours is still the one judged. */
    replace: (c: Change, { at, st }: Seen): Result => {
      // Yours, kept by a second name until the worker's is renamed over it: at every instant one of them is at its path.
      const kept = keepAside(at, st);
      if (kept === undefined) return conflict('changed-here', true);
      try {
        try {
          renameOver(c, at);
        } catch (e) {
          unlinkOrNot(kept.path);
          throw e;
        }
        // What was renamed over, seen through its second name (or, with a copy, the file held open).
        const was = kept.linked ? lstatSync(kept.path) : kept.fd !== undefined ? fstatSync(kept.fd) : undefined;
        if (was !== undefined && !unchanged(was, st)) {
          // Written in place in the instant before the rename: yours goes back, the worker's stays there.
          if (kept.fd !== undefined) {
            // The copy was made before that write: yours as it is now, copied again from the file held open.
            const now = beside(at);
            copyOf(kept.fd, now);
            rename(now, at);
            unlinkSync(kept.path);
          } else rename(kept.path, at);
          return conflict('changed-here', false);
        }
        unlinkSync(kept.path);
        return applied('file');
      } finally {
        if (kept.fd !== undefined) closeSync(kept.fd);
      }
    },

    /** mtime and mode on the file judged (opened without following a link); left alone when it changed meanwhile, as a file changed here before the run would be. */
    touch: (c: Change, { at, st }: Seen): Result => {
      let fd: number;
      try {
        fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EACCES') throw e;
        // A file its owner may not read: by its name, right after checking it is still the one judged.
        if (!unchanged(lstatSync(at), st) || !lstatSync(at).isFile()) return { outcome: 'skipped' };
        chmodSync(at, modeOf(c));
        utimesSync(at, fileTime(c.mtime), fileTime(c.mtime));
        return applied('touch');
      }
      try {
        if (!unchanged(fstatSync(fd), st)) return { outcome: 'skipped' };
        fchmodSync(fd, modeOf(c));
        futimesSync(fd, fileTime(c.mtime), fileTime(c.mtime));
        return applied('touch');
      } finally {
        closeSync(fd);
      }
    },

    /** A file or link deleted, if it is still the one judged: moved aside first, then unlinked. */
    delete: (c: Change, { at, st }: Seen): Result => {
      const taken = takeAway(c, at, st);
      if ('yours' in taken) return { ...conflict('delete-kept', false), ...(taken.yours === undefined ? {} : { yours: taken.yours }) };
      unlinkSync(taken.aside);
      return applied('file');
    },

    makeFolder: (c: Change): Result => {
      const to = entry(c.path, true);
      if (to === 'missing' || to === 'blocked') return conflict('blocked', false);
      mkdirSync(to);
      return applied('folder');
    },

    /** Only an empty real folder: what is still in it is here only (ignored files, or files kept above). */
    removeFolder: ({ at }: Seen): Result => {
      try {
        rmdirSync(at);
        return applied('folder');
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw e;
        return { outcome: 'skipped' };
      }
    },

    /** Keeps the worker's version of `c` where the user finds it; returns that place (relative to root). */
    save: (c: Change): string | undefined => {
      if (c.type === 'd' || (c.type === 'f' && c.staged === undefined)) return undefined;
      const base = places.conflictsDir();
      if (base === undefined) return undefined;
      const saved = intoConflicts(c, base, (to) => {
        if (c.type === 'l') symlinkSync(c.target, to);
        else rename(stagedAt(c), to);
      });
      if (c.type === 'f') delete c.staged;
      return saved;
    },
  };
}

/** A copy of the file open at `fd` made at `to` (never over anything), with its mode and mtime. */
function copyOf(fd: number, to: string): void {
  const st = fstatSync(fd);
  const out = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, st.mode & 0o7777);
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let pos = 0;
    for (let k = readSync(fd, buf, 0, buf.length, pos); k > 0; k = readSync(fd, buf, 0, buf.length, pos)) {
      for (let w = 0; w < k; ) w += writeSync(out, buf, w, k - w);
      pos += k;
    }
    fchmodSync(out, st.mode & 0o7777);
    futimesSync(out, st.atime, st.mtime);
  } catch (e) {
    closeSync(out);
    unlinkOrNot(to);
    throw e;
  }
  closeSync(out);
}

/** link(2)'s refusals that mean no hard link can be made here (the file system has none, or the file has too many). */
const noHardLinks = (code: string | undefined) => code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EMLINK';

function unlinkOrNot(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* never made */
  }
}
