// sparehand's own files (its state, cache and temp folders) opened safely, in one place. Those folders can be
// reached by others: a coding tool's sandbox that --sandbox-access lets write them runs any command the agent
// writes, and a shared temp folder (`/tmp/sparehand-<uid>`) can be made first by another user. So a file is read
// only when sparehand could have made it: a regular file (not a link, a FIFO or a device), of this user's, with one
// name (not a hard link to another file), in folders of this user's that no other user can write. Nothing is
// opened through a link (O_NOFOLLOW) or waited on (O_NONBLOCK: a FIFO is seen by fstat and passed over), a file is
// written whole into a new name (O_EXCL) and renamed over the old one (a link there is replaced, never followed),
// and anything else is ignored with one `sparehand:` line. Where there is no O_NOFOLLOW (Windows, where neither a
// link nor a FIFO can be planted this way; the in-process hook's stand-in fs, whose writes go through the tool), the
// same checks are made on the name before plain calls. (Loaded by the hook's hot path: node:fs and node:path.)
import {
  type Stats,
  appendFileSync,
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';

/** Where the line about an ignored file goes (the CLI's stderr; nowhere for the hook, whose streams are the tool's). */
export interface Said {
  stderr?: { write(text: string): unknown };
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = constants;
/** Whether files can be opened without following a link (else: checked by name, then plain calls). */
const SAFE = constants.O_NOFOLLOW !== undefined;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The largest state file read (each is a few kB; more is not one of sparehand's). */
export const MAX_OWN_FILE = 8 * 1024 * 1024;

const me = (): number | undefined => process.geteuid?.() ?? process.getuid?.();

/** What was already said in this process (one line per path). */
const said = new Set<string>();

/** Says (once) that `path` is ignored, and why; false, for the callers that return it. */
function ignored(c: Said, path: string, why: string): false {
  if (!said.has(path)) c.stderr?.write(`sparehand: ignored ${path}: ${why}\n`);
  said.add(path);
  return false;
}

/** Why a file is not one sparehand made, or undefined when it could be (`linked`: a second name is sparehand's too). */
export function fileFault(st: Stats, linked = false): string | undefined {
  if (st.isSymbolicLink()) return 'a link, not a file sparehand made';
  if (st.isFIFO()) return 'a FIFO, not a file sparehand made';
  if (!st.isFile()) return 'not a regular file';
  const uid = me();
  if (uid !== undefined && st.uid !== uid) return `it belongs to another user (uid ${st.uid})`;
  if (st.nlink > 1 && !linked) return 'a hard link to another file, not a file sparehand made';
  return undefined;
}

/**
 * The folders of sparehand's that hold `dir`, outermost first: `dir` and those above it up to the nearest one named
 * `sparehand…` (`~/.local/state/sparehand`, `$TMPDIR/sparehand-<uid>`); `dir` alone when none is.
 */
function folders(dir: string): string[] {
  const up: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    up.unshift(d);
    if (basename(d).startsWith('sparehand')) return up;
    if (dirname(d) === d || up.length > 8) return [dir];
  }
}

/**
 * Whether `dir` is a private folder of this user's (made, 0700, with `make`): each folder from the `sparehand…` one
 * down is a real folder of this user's; one that other users could write in is made private (0700) and said so.
 * A link or another user's folder is ignored with a line (the caller falls back or skips). The outermost may be a
 * link of this user's to a folder of this user's (a dotfiles manager's).
 */
export function ownFolder(c: Said, dir: string, opts: { make?: boolean } = {}): boolean {
  const uid = me();
  const chain = folders(dir);
  for (const [i, d] of chain.entries()) {
    let st = lstatSync(d, { throwIfNoEntry: false });
    if (st === undefined) {
      if (!opts.make) return false;
      try {
        mkdirSync(d, { recursive: i === 0, mode: 0o700 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      }
      st = lstatSync(d, { throwIfNoEntry: false });
      if (st === undefined) return false;
    }
    if (i === 0 && st.isSymbolicLink() && (uid === undefined || st.uid === uid)) {
      try {
        st = lstatSync(`${d}/.`);
      } catch {
        return false;
      }
    }
    if (st.isSymbolicLink()) return ignored(c, d, 'a link, not a folder sparehand made');
    if (!st.isDirectory()) return ignored(c, d, 'not a folder');
    if (uid !== undefined && st.uid !== uid) return ignored(c, d, `it belongs to another user (uid ${st.uid})`);
    if ((st.mode & 0o022) !== 0) {
      try {
        chmodSync(d, 0o700);
      } catch {
        return ignored(c, d, 'other users can write in it');
      }
      if (!said.has(d)) c.stderr?.write(`sparehand: made ${d} private (0700): other users could write in it\n`);
      said.add(d);
    }
  }
  return true;
}

/** Opens `path` without following a link or waiting on a FIFO; the descriptor when it is a file sparehand made. */
function openChecked(c: Said, path: string, flags: number, mode = 0o600, linked = false): number | undefined {
  if (!SAFE) throw new Error('openChecked needs O_NOFOLLOW');
  let fd: number;
  try {
    fd = openSync(path, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // ELOOP: a link; ENXIO: a FIFO no one reads (opened to write); EISDIR: a folder.
    const st = lstatSync(path, { throwIfNoEntry: false });
    const fault = st && fileFault(st, linked);
    if (fault) ignored(c, path, fault);
    return undefined;
  }
  const fault = fileFault(fstatSync(fd), linked);
  if (fault === undefined) return fd;
  closeSync(fd);
  ignored(c, path, fault);
  return undefined;
}

/** Where there is no O_NOFOLLOW: whether the name is a file sparehand could have made (said when not). */
function plainOk(c: Said, path: string, linked = false): boolean | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return undefined;
  const fault = fileFault(st, linked);
  return fault === undefined ? true : ignored(c, path, fault);
}

export interface ReadOpts {
  /** The most bytes read (more: not a file sparehand made). */
  max?: number;
  /** A lock sparehand links into place (lib/run/folders.ts) has two names for a moment: that is not refused. */
  linked?: boolean;
}

/** The bytes of one of sparehand's own files; undefined when there is none or it is not one sparehand made (said). */
export function readOwnBytes(c: Said, path: string, opts: ReadOpts = {}): Buffer | undefined {
  const max = opts.max ?? MAX_OWN_FILE;
  if (!ownFolder(c, dirname(path))) return undefined;
  if (!SAFE) {
    try {
      return plainOk(c, path, opts.linked) ? readFileSync(path) : undefined;
    } catch {
      return undefined;
    }
  }
  const fd = openChecked(c, path, O_RDONLY, 0o600, opts.linked);
  if (fd === undefined) return undefined;
  try {
    const size = fstatSync(fd).size;
    if (size > max) {
      ignored(c, path, `larger than ${max} bytes, not a file sparehand made`);
      return undefined;
    }
    // Read to its end (it may have grown since the fstat), never past `max`.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const b = Buffer.allocUnsafe(Math.max(size - total, 64 * 1024));
      const n = readSync(fd, b, 0, b.length, null);
      if (n === 0) break;
      total += n;
      if (total > max) {
        ignored(c, path, `larger than ${max} bytes, not a file sparehand made`);
        return undefined;
      }
      chunks.push(b.subarray(0, n));
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The text of one of sparehand's own files; undefined when there is none or it is not one sparehand made (said). */
export function readOwnFile(c: Said, path: string, opts: ReadOpts = {}): string | undefined {
  if (SAFE) return readOwnBytes(c, path, opts)?.toString('utf8');
  // The in-process hook's stand-in fs gives text only with an encoding.
  if (!ownFolder(c, dirname(path))) return undefined;
  try {
    return plainOk(c, path, opts.linked) ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON file of sparehand's own, parsed; undefined when missing, not sparehand's or not JSON. */
export function readOwnJson(c: Said, path: string): unknown {
  const text = readOwnFile(c, path);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Writes `data` as `file`, whole or not at all, readable by this user only: into a new name (O_EXCL, never through
 * a link) and renamed over `file` (a link there is replaced, its target untouched). Throws as writeFileSync does;
 * the temp file does not stay behind. No folder check: also for the project's `.sparehand/`.
 */
export function replaceOwnFile(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}`;
  if (!SAFE) {
    try {
      writeFileSync(tmp, data, { mode: 0o600 });
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    return;
  }
  let fd: number;
  try {
    fd = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // Left by a process of this pid before (or planted): a name only, removed without following it.
    rmSync(tmp, { force: true });
    fd = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  }
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Writes one of sparehand's own files in a private folder (made); false when it cannot (said when unsafe). */
export function writeOwnFile(c: Said, file: string, data: string | Uint8Array): boolean {
  if (!ownFolder(c, dirname(file), { make: true })) return false;
  try {
    replaceOwnFile(file, data);
    return true;
  } catch {
    return false;
  }
}

/**
 * Appends `text` to one of sparehand's own files (a log), replaced by an empty one first when it is over `max` bytes;
 * a name that is not a file sparehand made is removed (a name only: a link's target is untouched) and made anew.
 */
export function appendOwnFile(c: Said, file: string, text: string, opts: { max?: number } = {}): boolean {
  if (!ownFolder(c, dirname(file), { make: true })) return false;
  if (!SAFE) {
    try {
      if (plainOk(c, file) === false) rmSync(file, { force: true });
      if (opts.max !== undefined && (lstatSync(file, { throwIfNoEntry: false })?.size ?? 0) > opts.max) replaceOwnFile(file, '');
      appendFileSync(file, text, { mode: 0o600 });
      return true;
    } catch {
      return false;
    }
  }
  for (let tries = 0; tries < 2; tries++) {
    const fd = openChecked(c, file, O_WRONLY | O_APPEND | O_CREAT);
    if (fd === undefined) {
      if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return false;
      try {
        rmSync(file, { force: true });
      } catch {
        return false;
      }
      continue;
    }
    let full: boolean;
    try {
      full = opts.max !== undefined && fstatSync(fd).size > opts.max;
      if (!full) writeSync(fd, text);
    } catch {
      return false;
    } finally {
      closeSync(fd);
    }
    if (!full) return true;
    // Over its bound: replaced by an empty file (a rename: the one opened and checked is left as it was).
    try {
      replaceOwnFile(file, '');
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Makes one of sparehand's own files only if no file has that name (a lock, an id): O_EXCL, which a link there
 * fails too. `made` when this call made it; `exists` when something has that name; `failed` when it cannot be made.
 */
export function createOwnFile(c: Said, file: string, data = ''): 'made' | 'exists' | 'failed' {
  if (!ownFolder(c, dirname(file), { make: true })) return 'failed';
  if (!SAFE) {
    try {
      writeFileSync(file, data, { flag: 'wx', mode: 0o600 });
      return 'made';
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EEXIST' ? 'exists' : 'failed';
    }
  }
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EEXIST' ? 'exists' : 'failed';
  }
  try {
    if (data) writeSync(fd, data);
    return 'made';
  } catch {
    rmSync(file, { force: true });
    return 'failed';
  } finally {
    closeSync(fd);
  }
}

/**
 * A new empty file of sparehand's own at `file`, open to append to (a log handed to a child process): whatever had
 * that name is removed first (a name only), and the file is made with O_EXCL, so nothing planted is written through.
 */
export function openFreshOwnFile(c: Said, file: string): number | undefined {
  if (!ownFolder(c, dirname(file), { make: true })) return undefined;
  try {
    rmSync(file, { force: true });
    return openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch {
    return undefined;
  }
}
