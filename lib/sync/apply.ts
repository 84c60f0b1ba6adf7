// Writing the command's changes here, each on its own, as a transition (mutagen's transition.go): a loop over the
// changes that looks at what is at each path now, asks decide.ts what to do (and case-twin.ts, on a disk that
// ignores case), hands the change to its operation (operations.ts: one per kind of write, each checking right
// before it writes that what is there is still what was judged), and returns one step per change, counted
// afterwards. A change that cannot be written (permission, a read-only or full disk, another file system) becomes
// a conflict with the reason, and every other change is still applied. Synchronous on purpose: a signal that
// arrives while changes are applied is handled after the last one, so a run never stops half applied. Every name
// is reached through its folder opened once (open-folders.ts), never by a path checked earlier: a folder swapped
// for a link during the apply stops it there (one conflict), and nothing lands outside the project.
import { createHash } from 'node:crypto';
import { type Stats, closeSync, constants, fstatSync, openSync, readSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Change } from '../remote/change.js';
import { caseTwins } from './case-twin.js';
import { type ConflictKind, type ConflictPlace, type Decision, type Here, type Known, decide } from './decide.js';
import { FolderMoved, type Folders, type Reach, lstatOrUndefined, openFolders, openOne } from './open-folders.js';
import { type Places, type Result, type Seen, operations, split } from './operations.js';

export interface Conflict extends ConflictPlace {
  kind: ConflictKind;
  path: string;
}

/** How each change ended, for the ancestor (ancestor.ts): `kept` stayed on the worker (decide.ts 'keep'). */
export type Outcome = Step['outcome'];

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
    const noRoot: Conflict = { kind: 'no-root', path: '.', detail: `the project folder could not be opened (${errnoText(e)})`, there: opts.there };
    return tally({ steps: [], notes: [], stopped: { conflict: noRoot, rest: [] } });
  }
  let saving: Folders | undefined;
  let scratch: { path: string; at: string; close: () => void } | undefined;
  try {
    return tally(
      transition(changes, opts, folders, {
        saving: () => (saving ??= openFolders(opts.root, opts.reach)),
        scratch: () => {
          if (scratch === undefined) {
            const path = opts.scratch();
            scratch = { path, ...openOne(path, opts.reach) };
          }
          return scratch;
        },
      }),
    );
  } finally {
    folders.close();
    saving?.close();
    scratch?.close();
    back();
  }
}

/** How one change ended, in the apply's order: what was done with it, or the conflict it is and where the worker's version went. */
export type Step =
  | { change: Change; outcome: 'applied'; counts: 'file' | 'touch' | 'folder' }
  | { change: Change; outcome: 'same' | 'skipped' }
  | { change: Change; outcome: 'kept'; platform: string }
  | { change: Change; outcome: 'conflict'; conflict: Conflict };

/** What the apply did, change by change, before it is counted. */
export interface Transition {
  steps: Step[];
  /** Lines about changes applied otherwise than they came (a bit not applied). */
  notes: string[];
  /** Why nothing (more) was written (the project folder could not be opened, a folder moved while it was written into), and the changes not reached. */
  stopped?: { conflict: Conflict; rest: readonly Change[] };
}

/**
 * The loop over the changes, in the apply's order (deletions first, deepest first; then the rest, folders before
 * what they hold): each is looked at here, decided (decide.ts), and handed to its operation (operations.ts), which
 * checks again right before it writes. A conflict's worker version is kept as soon as it is one.
 */
function transition(
  changes: readonly Change[],
  opts: ApplyOptions,
  folders: Folders,
  opened: Omit<Places, 'folders' | 'conflictsDir' | 'withoutSpecialBits'>,
): Transition {
  const steps: Step[] = [];
  const notes: string[] = [];
  const ops = operations({
    folders,
    ...opened,
    conflictsDir: opts.conflictsDir,
    withoutSpecialBits: (c) => notes.push(`${opts.printable(c.path)} came back without its setuid, setgid or sticky bit`),
  });

  const hereOf = (c: Change): { here: Here; seen: Seen | undefined } => {
    const [dir, name] = split(c.path);
    const f = folders.folder(dir, false);
    // A missing folder above is nothing here, not a block.
    if (f === 'missing') return { here: { kind: 'absent' }, seen: undefined };
    if (f === 'blocked') return { here: { kind: 'blocked' }, seen: undefined };
    const at = join(f, name);
    const st = lstatOrUndefined(at);
    if (st === undefined) return { here: { kind: 'absent' }, seen: undefined };
    const kind = typeOf(st);
    return { here: { kind, hash: kind === c.type && (kind === 'f' || kind === 'l') ? localHash(at, st) : undefined }, seen: { at, st } };
  };

  /** The conflict `c` is, its worker version kept first when `keep` (where it could not be, it stays on the worker); `yours`: where your version was kept. */
  const conflict = (kind: ConflictKind, c: Change, keep: boolean, detail?: string, yours?: string): Step => {
    let saved: string | undefined;
    if (keep) {
      try {
        saved = ops.save(c);
      } catch {
        saved = undefined;
      }
    }
    const there = saved === undefined && kind !== 'refused' && kind !== 'special' && kind !== 'delete-kept' ? opts.there : undefined;
    return {
      change: c,
      outcome: 'conflict',
      conflict: { kind, path: c.path, ...(saved ? { saved } : {}), ...(detail ? { detail } : {}), ...(there ? { there } : {}), ...(yours ? { yours } : {}) },
    };
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

  /** The operation for decision `d` (the entry judged is there for every decision that changes what is there). */
  const operate = (c: Change, d: Decision, seen: Seen | undefined): Result => {
    const judged = () => seen as Seen;
    switch (d.act) {
      case 'mkdir':
        return ops.makeFolder(c);
      case 'rmdir':
        return ops.removeFolder(judged());
      case 'touch':
        return ops.touch(c, judged());
      case 'delete':
        return ops.delete(c, judged());
      case 'write':
        if (d.replace) return ops.replace(c, judged());
        return c.type === 'l' ? ops.createLink(c) : ops.createFile(c);
      default:
        throw new Error(`no operation for ${d.act}`);
    }
  };

  const step = (c: Change, d: Decision, seen: Seen | undefined, known: Known): Step => {
    switch (d.act) {
      case 'skip':
        return { change: c, outcome: d.why === 'same' ? 'same' : 'skipped' };
      case 'fetch':
        return { change: c, outcome: 'skipped' };
      case 'keep':
        return { change: c, outcome: 'kept', platform: known.foreign ?? '' };
      case 'conflict':
        return conflict(d.kind, c, d.save, d.kind === 'case' ? known.caseTwin : d.kind === 'refused' ? known.refused : c.problem);
    }
    const r = operate(c, d, seen);
    return r.outcome === 'conflict' ? conflict(r.kind, c, r.save, undefined, r.yours) : { change: c, ...r };
  };

  const deletions = changes.filter((c) => c.op === 'D').sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
  const others = changes.filter((c) => c.op !== 'D').sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const all = [...deletions, ...others];
  for (let i = 0; i < all.length; i++) {
    const c = all[i] as Change;
    folders.next();
    const known: Known = { ...opts.known(c) };
    try {
      if (known.refused !== undefined) {
        // Never looked for here: a refused path may lead anywhere.
        steps.push(step(c, decide(c, { kind: 'absent' }, known), undefined, known));
        continue;
      }
      const twin = c.problem === undefined ? twinOf(c) : undefined;
      if (twin !== undefined) known.caseTwin = twin;
      const { here, seen } = hereOf(c);
      steps.push(step(c, decide(c, here, known), seen, known));
    } catch (e) {
      // Something here is moving the project's folders while they are written: nothing more is written.
      if (e instanceof FolderMoved) return { steps, notes, stopped: { conflict: { kind: 'moved-here', path: e.path, there: opts.there }, rest: all.slice(i) } };
      steps.push(conflict('not-written', c, true, errnoText(e)));
    }
  }
  return { steps, notes };
}

/** The apply's steps counted as the run reports them (run/report.ts) and the ancestor remembers them (ancestor.ts). */
function tally(t: Transition): Applied {
  const out: Applied = { files: 0, touched: 0, bytes: 0, byFolder: new Map(), conflicts: [], kept: [], notes: t.notes, outcomes: new Map() };
  for (const s of t.steps) {
    const c = s.change;
    out.outcomes.set(c.index, s.outcome);
    if (s.outcome === 'conflict') out.conflicts.push(s.conflict);
    if (s.outcome === 'kept') out.kept.push({ path: c.path, size: c.size, platform: s.platform });
    if (s.outcome !== 'applied') continue;
    if (s.counts === 'touch') out.touched++;
    if (s.counts !== 'file') continue;
    out.files++;
    if (c.type !== 'f' || c.op === 'D') continue;
    out.bytes += c.size;
    const folder = c.path.split('/').slice(0, -1).slice(0, 2).join('/') || '.';
    out.byFolder.set(folder, (out.byFolder.get(folder) ?? 0) + c.size);
  }
  if (t.stopped !== undefined) {
    out.conflicts.push(t.stopped.conflict);
    for (const rest of t.stopped.rest) out.outcomes.set(rest.index, 'conflict');
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
