// The folders the apply writes into, each opened once through the one above it and never through a link
// (O_DIRECTORY | O_NOFOLLOW), so that a write lands in the folder that was checked, never in what was put at its
// path since. Node has no openat: on Linux a name is reached through its opened folder as
// `/proc/self/fd/<fd>/<name>`, which leads to that folder whatever has been renamed or linked at its path. Where
// there is no such path (a Mac: /dev/fd does not lead into folders; Node has no fchdir either), from inside the
// folder: the process's working folder is changed to it and checked to be it (same device and inode) before names
// are used, relative to it, and a working folder stays the folder it is whatever is renamed or linked at its path.
// Either way the folder written into is checked again before every change (its path still leads to it: still a
// folder, the same device and inode), and one that was moved or replaced throws FolderMoved: the apply stops there.
import { type Stats, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

const DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A folder the apply holds open was moved or replaced (by a link, another folder) while it wrote. */
export class FolderMoved extends Error {
  constructor(readonly path: string) {
    super(`${path} was moved or replaced`);
  }
}

interface Opened {
  name: string;
  /** Relative to the root ('.' for it). */
  rel: string;
  fd: number;
  dev: number;
  ino: number;
  /** The absolute path it was opened at. */
  path: string;
}

export interface Folders {
  /**
   * The place through which the names in folder `dir` (relative to the root; '' is the root) are reached, or why
   * there is none: `missing` (a folder on the way is not there; `make` makes them), `blocked` (a file or a link
   * stands where a folder is needed). Throws FolderMoved when a folder held open is no longer at its path.
   */
  folder(dir: string, make: boolean): string | 'missing' | 'blocked';
  /** A new change: the folders held open are checked again at the next `folder` (once per change is enough). */
  next(): void;
  close(): void;
}

const sameNode = (a: Stats, b: { dev: number; ino: number }) => a.dev === b.dev && a.ino === b.ino;

/** lstat, or nothing where the path (or a folder on the way) is not there. */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** Whether names are reached through /proc/self/fd here (Linux), checked on a folder opened. */
function procReaches(fd: number): boolean {
  try {
    return sameNode(statSync(`/proc/self/fd/${fd}`), fstatSync(fd));
  } catch {
    return false;
  }
}

/**
 * How names in an opened folder are reached: `proc`, through `/proc/self/fd/<fd>/` (Linux); `cwd`, from inside
 * it (the process's working folder, which the caller sets back when done: applyChanges does).
 */
export type Reach = 'proc' | 'cwd';

/** `o`'s folder made the working folder, checked to be the one opened: names are then relative to it. */
function enter(o: Opened): string {
  try {
    process.chdir(o.path);
  } catch {
    throw new FolderMoved(o.rel);
  }
  if (!sameNode(statSync('.'), o)) throw new FolderMoved(o.rel);
  return '.';
}

/** Opens the project root (`root`, as given) and the folders below it as changes need them. */
export function openFolders(root: string, reach?: Reach): Folders {
  const fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  const st = fstatSync(fd);
  const proc = (reach ?? (procReaches(fd) ? 'proc' : 'cwd')) === 'proc';
  const chain: Opened[] = [{ name: '', rel: '.', fd, dev: st.dev, ino: st.ino, path: root }];
  const through = (o: Opened) => (proc ? `/proc/self/fd/${o.fd}` : enter(o));

  const open = (above: Opened, name: string, make: boolean): Opened | 'missing' | 'blocked' => {
    const at = join(through(above), name);
    let seen = lstatOrUndefined(at);
    if (seen === undefined) {
      if (!make) return 'missing';
      try {
        mkdirSync(at);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      seen = lstatOrUndefined(at);
      if (seen === undefined) throw new FolderMoved(relOf(above, name));
    }
    if (!seen.isDirectory()) return 'blocked';
    let opened: number;
    try {
      opened = openSync(at, DIR);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A folder at the lstat, a link or gone at the open: swapped in between.
      if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw new FolderMoved(relOf(above, name));
      throw e;
    }
    const now = fstatSync(opened);
    if (!sameNode(now, seen)) {
      closeSync(opened);
      throw new FolderMoved(relOf(above, name));
    }
    return { name, rel: relOf(above, name), fd: opened, dev: now.dev, ino: now.ino, path: join(above.path, name) };
  };

  /** The folders checked by their path since the last `next`. */
  const checked = new Set<Opened>();
  const truncate = (keep: number) => {
    while (chain.length > keep) closeSync((chain.pop() as Opened).fd);
  };

  return {
    folder(dir, make) {
      const parts = dir === '' || dir === '.' ? [] : dir.split('/');
      let k = 0;
      while (k < parts.length && k + 1 < chain.length && chain[k + 1]?.name === parts[k]) k++;
      truncate(k + 1);
      for (let i = k; i < parts.length; i++) {
        const next = open(chain.at(-1) as Opened, parts[i] as string, make);
        if (typeof next === 'string') return next;
        chain.push(next);
      }
      const last = chain.at(-1) as Opened;
      // Once per change, the folder's path still leads to it: nothing above it was moved, no link is in its place.
      // (The root was checked by the run before the apply, and its fd is the folder whatever happens at its path;
      // from inside a folder, entering it by its path is that check.)
      if (proc && last !== chain[0] && !checked.has(last)) {
        const now = lstatOrUndefined(last.path);
        if (now?.isDirectory() !== true || !sameNode(now, last)) throw new FolderMoved(last.rel);
      }
      checked.add(last);
      return through(last);
    },
    next() {
      checked.clear();
    },
    close() {
      truncate(0);
    },
  };
}

const relOf = (above: Opened, name: string) => (above.rel === '.' ? name : `${above.rel}/${name}`);

/** One folder opened by its absolute path (never through a link at its last name): the place names in it are reached through, and its closing. */
export function openOne(path: string, reach?: Reach): { at: string; close: () => void } {
  const fd = openSync(path, DIR);
  const at = (reach ?? (procReaches(fd) ? 'proc' : 'cwd')) === 'proc' ? `/proc/self/fd/${fd}` : path;
  return { at, close: () => closeSync(fd) };
}
