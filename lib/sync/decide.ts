// The decision, for one change the command made on the worker: apply it here, skip it, or keep it apart as a
// conflict — from the change, what is at its path here now, and what sparehand knows of that path. Pure: apply.ts
// looks at the disk and writes; this only decides (test/sync/decide.test.ts runs it over every op × type × state
// here). The conflict kinds' wording lives beside it, and docs/run.md's table is made from DECISION_TABLE.
import type { Change } from '../remote/change.js';

/** What is at the change's path here. */
export interface Here {
  /** `blocked`: a folder above it is a file or a link here (nothing is ever written through one). */
  kind: 'absent' | 'blocked' | 'f' | 'l' | 'd' | 'other';
  /** md5 of its content (a link's: of its target), for a file or link of the change's type. */
  hash?: string | undefined;
}

/** What sparehand knows of the path, besides the change. */
export interface Known {
  /**
   * rsync sends this path (tracked, or untracked and not ignored): here is its truth. Otherwise it is an output
   * (ignored here), and a file that is byte for byte what sparehand left here is sparehand's to replace.
   */
  sent: boolean;
  /** Hashes of what sparehand left at this path here, as its copies' ancestors remember (lib/sync/ancestor.ts). */
  mine: readonly string[];
  /** Why the path may not be written at all (guard.ts), if so. */
  refused?: string | undefined;
  /** It is a coding tool's settings in the project (guard.ts isToolSettings): never changed by a run. */
  settings?: boolean;
  /** On a disk here that folds case: the name here, or made before, that differs from the change's only in case (case-twin.ts). */
  caseTwin?: string | undefined;
  /**
   * The worker's platform differs from this machine's, and the change's content is native code the worker made
   * for itself that does not run here (lib/platform/native-code.ts keptOnWorker): the worker's platform, as
   * people read it (`Linux x86-64`). Such a file stays on the worker.
   */
  foreign?: string | undefined;
  /** The copy's ancestor records this path as kept on the worker (a foreign file of an earlier run). */
  keptThere?: boolean;
}

export type ConflictKind =
  | 'changed-here'
  | 'deleted-here'
  | 'exists-here'
  | 'delete-kept'
  | 'case'
  | 'blocked'
  | 'settings'
  | 'refused'
  | 'special'
  | 'not-applied'
  | 'not-written'
  | 'moved-here'
  | 'no-root';

export type SkipWhy = 'same' | 'gone' | 'untouched' | 'kept';

export type Decision =
  | { act: 'write'; replace: boolean }
  | { act: 'delete' }
  | { act: 'mkdir' }
  | { act: 'rmdir' }
  | { act: 'touch' }
  /** The content is needed first (a file only touched on the worker is missing here, or here is another copy's). */
  | { act: 'fetch' }
  | { act: 'skip'; why: SkipWhy }
  /** `save`: the worker's version is kept where the user finds it. */
  | { act: 'conflict'; kind: ConflictKind; save: boolean }
  /** Native code of the worker's platform, which does not run here: it stays in the worker's copy (run/report.ts names them). */
  | { act: 'keep' };

const write = (replace: boolean): Decision => ({ act: 'write', replace });
const skip = (why: SkipWhy): Decision => ({ act: 'skip', why });
const conflict = (kind: ConflictKind, save: boolean): Decision => ({ act: 'conflict', kind, save });

export function decide(c: Change, here: Here, known: Known): Decision {
  if (known.refused !== undefined) return conflict('refused', false);
  if (c.problem !== undefined) return conflict('not-applied', false);
  if (c.type === 's') return c.op === 'C' || c.op === 'M' ? conflict('special', false) : skip('untouched');
  // Another platform's executable or library is never written here, over nothing or over a file (docs/run.md
  // "Mac laptop, Linux worker"); one that was kept there and is now deleted or touched there is none of this machine's business.
  if (known.foreign !== undefined && c.type === 'f' && c.op !== 'D') return { act: 'keep' };
  if (known.keptThere && (c.op === 'D' || c.op === 'T')) return skip('kept');
  if (known.settings) return c.type === 'd' ? skip('kept') : conflict('settings', c.op !== 'D' && c.op !== 'T');
  if (here.kind === 'blocked') return c.op === 'D' ? skip('gone') : c.op === 'T' ? skip('untouched') : conflict('blocked', c.type !== 'd');
  const sameType = here.kind === c.type;
  const mine = !known.sent && sameType && here.hash !== undefined && known.mine.includes(here.hash);
  if (c.type === 'd') {
    if (c.op === 'D') return here.kind === 'd' ? { act: 'rmdir' } : skip('gone');
    if (known.caseTwin !== undefined) return conflict('case', false);
    if (here.kind === 'absent') return { act: 'mkdir' };
    return here.kind === 'd' ? skip('same') : conflict('blocked', false);
  }
  switch (c.op) {
    case 'D':
      if (here.kind === 'absent') return skip('gone');
      return sameType && (here.hash === c.base || mine) ? { act: 'delete' } : conflict('delete-kept', false);
    case 'T':
      if (sameType && here.hash === c.base) return c.type === 'f' ? { act: 'touch' } : skip('same');
      if (here.kind === 'absent' ? known.sent : !mine) return skip('untouched');
      // An output missing here, or another copy's: the worker's has the content, which the report did not carry.
      if (c.staged === undefined && c.type === 'f') return { act: 'fetch' };
      return write(here.kind !== 'absent');
    default: {
      if (known.caseTwin !== undefined) return conflict('case', true);
      // (Nothing here where the worker kept its own platform's file: nothing was ever written here to be deleted.)
      if (here.kind === 'absent') return c.op === 'C' || !known.sent || known.keptThere ? write(false) : conflict('deleted-here', true);
      if (sameType && here.hash === c.hash) return skip('same');
      if ((sameType && c.op === 'M' && here.hash === c.base) || mine) return write(true);
      return conflict(c.op === 'C' ? 'exists-here' : 'changed-here', true);
    }
  }
}

/** Where a conflict's worker version is, for a line (relative to the project root), or why it stays there. */
export interface ConflictPlace {
  saved?: string;
  /** For 'case': the name here; for 'not-applied', 'not-written', 'refused': why. */
  detail?: string;
  /** The worker and the copy's folder there, for what stays on the worker. */
  there?: string;
  /** Where your version was kept (relative to root) when it could not go back to its path ('delete-kept': another file took it, or no hard links). */
  yours?: string;
}

/** One sentence per conflict kind: what happened and what was kept (`p` is the path, printed safely). */
export function conflictSentence(kind: ConflictKind, p: string, at: ConflictPlace): string {
  const there = at.saved ? `; the worker's version is in ${at.saved}` : at.there ? `; it stays in the worker's copy (${at.there})` : '';
  switch (kind) {
    case 'changed-here':
      return `conflict: ${p} changed here while the command ran; kept yours${there}`;
    case 'deleted-here':
      return `conflict: ${p} was deleted (or moved) here while the command changed it${there}`;
    case 'exists-here':
      return `conflict: the command created ${p}, but a different ${p} is here; kept yours${there}`;
    case 'delete-kept':
      return at.yours
        ? `conflict: the command deleted ${p}, but it changed here; kept yours in ${at.yours} (another file took its path, or this disk has no hard links to put it back by without replacing one)`
        : `conflict: the command deleted ${p}, but it changed here; kept yours`;
    case 'case':
      return `conflict: the command created ${p}, which differs only in case from ${at.detail} here (this disk ignores case); kept ${at.detail}${there}`;
    case 'blocked':
      return `conflict: ${p} could not be put here: a file or a link stands where a folder is needed${there}`;
    case 'settings':
      return `conflict: the command changed ${p}, a coding tool's settings, which a run never changes; kept yours${there}`;
    case 'refused':
      return `refused: ${p} was not brought back: ${at.detail}`;
    case 'special':
      return `not made here: ${p} is a special file (a FIFO, socket or device) the command made on the worker`;
    case 'not-applied':
      return `conflict: ${p} was not brought back: ${at.detail}${there}`;
    case 'not-written':
      return `conflict: ${p} could not be written here (${at.detail})${there}`;
    case 'moved-here':
      return `conflict: ${p} was moved or replaced here while the command's changes were written into it (nothing is written through what took its place); the rest was not written${at.there ? `: it stays in the worker's copy (${at.there})` : ''}`;
    case 'no-root':
      return `nothing was written here: ${at.detail}${there}`;
  }
}

/** docs/run.md's table, row by row: the command did…, here…, what happens (generated: scripts/run-doc.js). */
export const DECISION_TABLE: ReadonlyArray<readonly [string, string, string]> = [
  [
    'changed or deleted a file or a link (or replaced one with the other)',
    'it holds the content (a link: the target) the command started from (same md5)',
    'applied (the new content, mode and mtime; or deleted)',
  ],
  ['changed a file that rsync sends', 'it was edited, renamed away or deleted here during the run', "**conflict**: yours stays, the worker's version is saved"],
  [
    'changed or created an output (a path rsync does not send: ignored here)',
    'nothing is there, or exactly what sparehand put there (from this copy or another)',
    'applied: outputs of the same build never conflict with each other',
  ],
  ["only touched an output that is missing here (or here is another copy's)", '—', 'its content is fetched in the same session and applied'],
  ['deleted a file', 'the file changed here', '**conflict**: yours stays (there is nothing to save)'],
  ['created a file or link', 'nothing is there', 'created'],
  ['created a file', 'the same content is there', 'nothing to do'],
  ['created a file', 'a different file is there (made, moved in or copied here meanwhile)', "**conflict**: yours stays, the worker's version is saved"],
  ['only touched a file (mtime, mode)', 'the file holds the content the command started from', 'mtime and mode applied; otherwise left alone'],
  ['created a folder', '—', 'made (when a file stands there: conflict)'],
  ['deleted a folder', '—', 'removed only when it is empty here: what is only here (ignored files never sent) stays'],
  ['wrote anything under a path that is a link here, or a file where a folder should be', '—', '**conflict**: nothing is ever written through a link here'],
  ["created `Foo.ts` beside `foo.ts`, on a disk here that ignores case (a Mac's)", '—', '**conflict**: the two are never merged'],
  [
    "changed a coding tool's settings in the project (its settings folder, hooks or instruction file: the list below)",
    '—',
    "**conflict**: a run never changes them; the worker's version is saved for you to take",
  ],
  [
    'made a `.git` entry, a link leading outside the project (or into `.git`), or anything in `.sparehand/`',
    '—',
    '**refused**: never written anywhere, one line names it',
  ],
  ['made a FIFO, socket or device', '—', 'named in one line, never made here'],
  ['gave a file a setuid, setgid or sticky bit', '—', 'the file comes back without the bit, and one line says so'],
  [
    'changed a path that cannot be written here (permission, read-only, no space)',
    '—',
    "**conflict**: the worker's version is saved, or stays on the worker; every other change is still applied",
  ],
  [
    "created or changed an executable, a shared library, an object file or a static library for the worker's platform (ELF, Mach-O, PE: by its bytes), when that platform is not this machine's",
    '—',
    '**kept on the worker**: never written here (over nothing or over a file), kept there through the next runs; one line names the first few and gives the `sparehand worker fetch` that brings them',
  ],
];
