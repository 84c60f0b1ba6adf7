// What the macOS watcher (fsevents-watcher.ts) journals for one FSEvents event: pure, so that its every choice is
// tested on Linux (test/watch/fsevents-records.test.ts). The journal is the Linux watcher's (watcher.pl's header has
// its format); the meanings are its, read off FSEvents' flags instead of inotify's mask. Whatever says FSEvents may
// have lost or coalesced events, or that the project is not where it was, ends the watcher with `! WHY`: the next
// run walks.

/**
 * FSEventStreamEventFlags (Apple's CoreServices FSEvents.h), as fsevents 2.3.3 exports them (`constants`, its
 * fsevents.d.ts): the module passes them on unfiltered, unlike libuv under Node's fs.watch.
 */
export const FSE = {
  MustScanSubDirs: 0x1,
  UserDropped: 0x2,
  KernelDropped: 0x4,
  EventIdsWrapped: 0x8,
  HistoryDone: 0x10,
  RootChanged: 0x20,
  Mount: 0x40,
  Unmount: 0x80,
  ItemCreated: 0x100,
  ItemRemoved: 0x200,
  ItemInodeMetaMod: 0x400,
  ItemRenamed: 0x800,
  ItemModified: 0x1000,
  ItemFinderInfoMod: 0x2000,
  ItemChangeOwner: 0x4000,
  ItemXattrMod: 0x8000,
  ItemIsFile: 0x10000,
  ItemIsDir: 0x20000,
  ItemIsSymlink: 0x40000,
  OwnEvent: 0x80000,
  ItemIsHardlink: 0x100000,
  ItemIsLastHardlink: 0x200000,
  ItemCloned: 0x400000,
} as const;

/** Each flag that means the stream can no longer vouch for everything, and the journal's reason. */
const LOST: readonly [number, string][] = [
  [FSE.UserDropped, 'FSEvents dropped events (this process fell behind)'],
  [FSE.KernelDropped, 'the kernel dropped changes (FSEvents said so)'],
  [FSE.MustScanSubDirs, 'FSEvents said a folder must be looked at whole (its events were coalesced or dropped)'],
  [FSE.EventIdsWrapped, "FSEvents' event ids wrapped around"],
  [FSE.RootChanged, 'the project folder was moved or deleted'],
  [FSE.Unmount, 'a volume in the project was unmounted'],
  [FSE.Mount, 'a volume was mounted in the project'],
];
/** A path made here, or moved here: a folder's whole content is journaled as made (what was in it is new here). */
const MADE = FSE.ItemCreated | FSE.ItemRenamed | FSE.ItemCloned;
/** Its folder's entries changed. */
const LISTING = MADE | FSE.ItemRemoved;
/** Its content or attributes changed. */
const CONTENT = FSE.ItemModified | FSE.ItemInodeMetaMod | FSE.ItemChangeOwner | FSE.ItemXattrMod | FSE.ItemFinderInfoMod;
/** What an event is about; with none of these nor the item flags, an event says only "something here changed". */
const ITEM = FSE.ItemIsFile | FSE.ItemIsDir | FSE.ItemIsSymlink | FSE.ItemIsHardlink | FSE.ItemIsLastHardlink;

const COOKIES = '.sparehand/watch/cookies/';

/** What one event becomes. */
export type Decision =
  /** The watcher lost track: `! WHY`, and it ends. */
  | { lost: string }
  /** A barrier (`k NAME`): a file made in the cookies folder. */
  | { barrier: string }
  /**
   * Records (`cPATH`, `sPATH`, without their NUL), none for what is not watched; `scan`: a folder made or moved in,
   * whose content the watcher lists and journals as made too.
   */
  | { records: string[]; scan?: string };

/** What the watcher watches: the project's real path (realpath: FSEvents names real paths) and what it skips. */
export interface Watched {
  root: string;
  /** Folders (relative) not watched: `.sparehand`, `.git/objects`, `.git/logs` and the skip file's (watcher.pl). */
  skip: ReadonlySet<string>;
}

/** The folders every watcher skips, beside those it is told to (watcher.pl's %skip). */
export const ALWAYS_SKIPPED = ['.sparehand', '.git/objects', '.git/logs'] as const;

/** Whether `rel` lies inside a skipped folder (the folder itself is not inside: its parent's listing names it). */
export function insideSkipped(rel: string, skip: ReadonlySet<string>): boolean {
  for (let at = rel.indexOf('/'); at >= 0; at = rel.indexOf('/', at + 1)) if (skip.has(rel.slice(0, at))) return true;
  return false;
}

/** The journal's records for FSEvents' event (`path`, `flags`) in the project `w`. */
export function decide(w: Watched, path: string, flags: number): Decision {
  for (const [flag, why] of LOST) if (flags & flag) return { lost: why };
  const abs = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const prefix = w.root.endsWith('/') ? w.root : `${w.root}/`;
  // FSEvents watches the real path it was given: a path elsewhere means this watcher's idea of where the project is
  // (a symlink, a firmlink, another case of a name) is not FSEvents', and every event may be mapped wrongly. To
  // ignore it could be to ignore every change; to end costs one walk.
  if (abs !== w.root && !abs.startsWith(prefix)) return { lost: `FSEvents named a path outside the project (${abs})` };
  const rel = abs === w.root ? '' : abs.slice(prefix.length);
  // A name whose NFC and NFD forms differ may reach the journal in one and the walk in the other (which one,
  // only a Mac with FSEvents says): no answer rather than a path the fingerprint does not know.
  if (rel.normalize('NFC') !== rel.normalize('NFD')) return { lost: `a changed name has two Unicode forms (${rel})` };
  if (rel === '') {
    if (flags & (FSE.ItemRemoved | FSE.ItemRenamed)) return { lost: 'the project folder was moved or deleted' };
    return { records: ['c'] };
  }
  if (rel.startsWith(COOKIES)) {
    const name = rel.slice(COOKIES.length);
    return name !== '' && !name.includes('/') && flags & MADE ? { barrier: name } : { records: [] };
  }
  if (insideSkipped(rel, w.skip)) return { records: [] };
  if (flags & LISTING) return { records: [`s${rel}`], ...(flags & MADE && flags & FSE.ItemIsDir ? { scan: rel } : {}) };
  if (flags & CONTENT) return { records: [`c${rel}`] };
  // No item flag: FSEvents says only that something at `rel` changed (kFSEventStreamEventFlagNone): look at it again,
  // and at its folder's entries. HistoryDone or OwnEvent alone say nothing of the project.
  if (flags & ITEM || flags === 0) return { records: [`s${rel}`] };
  return { records: [] };
}
