// sparehand's own folder in the project, `.sparehand/`: never synced, ignored by git through its own .gitignore.
// What comes back is staged in it (the same file system as the project, so a rename puts a file in place), the
// worker's versions of conflicting files are kept in it (one folder per run), and so are the copies' ancestors.
// It is checked before every use: a `.sparehand` that is a link (a project could commit one), not a folder, or
// another user's is refused, never followed, and nothing is made in a project folder that has gone away.
import { type Stats, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printable } from '../safe-text.js';

export const OWN_FOLDER = '.sparehand';
/** A staging folder this old belongs to a run that was killed: removed by the next run that brings files back. */
const STALE_MS = 3_600_000;

export type Checked = { dir: string } | { why: string };

/**
 * The name a file of yours has while the apply holds it aside in the run's staging folder (lib/sync/operations.ts):
 * moved there before a delete, or linked there before a replace. Whatever sparehand removes of a staging folder,
 * a run's own or a killed one's, it leaves these: when the apply could not put one back (or was killed holding it),
 * it is the only copy of your file.
 */
export const asideName = (n: number) => `aside-${n}`;
const ASIDE = /^aside-\d+$/;

const uid = () => (typeof process.getuid === 'function' ? process.getuid() : -1);

/** `dir` is a real folder of this user's (made when missing, but never its parent): its path, or why not. */
function checkedFolder(dir: string, shown: string): Checked {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { why: `${shown} cannot be looked at (${(e as NodeJS.ErrnoException).code})` };
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e2) {
      const code = (e2 as NodeJS.ErrnoException).code;
      return { why: code === 'ENOENT' ? 'the project folder is gone' : `${shown} cannot be made (${code})` };
    }
    return { dir };
  }
  if (st.isSymbolicLink()) {
    let to = '?';
    try {
      to = readlinkSync(dir);
    } catch {
      /* gone meanwhile */
    }
    return { why: `${shown} is a link (to ${printable(to)}), which sparehand never follows` };
  }
  if (!st.isDirectory()) return { why: `${shown} is not a folder` };
  if (uid() >= 0 && st.uid !== uid()) return { why: `${shown} belongs to another user` };
  return { dir };
}

/** `.sparehand/` in `root`, checked; `sub`: a folder in it, checked the same way. */
export function ownFolder(root: string, sub?: string): Checked {
  const top = checkedFolder(join(root, OWN_FOLDER), OWN_FOLDER);
  if ('why' in top) return top;
  try {
    writeFileSync(join(top.dir, '.gitignore'), "# sparehand: staging, the worker's versions of conflicting files, the sync's memory\n*\n", { flag: 'wx' });
  } catch {
    /* already there */
  }
  return sub === undefined ? top : checkedFolder(join(top.dir, sub), `${OWN_FOLDER}/${sub}`);
}

/**
 * `.sparehand/incoming/<nonce>`, made now (absolute), or why not. Old ones of killed runs are removed, but for the
 * files of yours they held aside: those go to `.sparehand/yours/` (removeStaging says them).
 */
export function makeStaging(root: string, nonce: string): Checked {
  const incoming = ownFolder(root, 'incoming');
  if ('why' in incoming) return incoming;
  for (const old of readdirSync(incoming.dir)) {
    try {
      if (Date.now() - statSync(join(incoming.dir, old)).mtimeMs > STALE_MS) clearStaging(root, old);
    } catch {
      /* another run's, gone meanwhile */
    }
  }
  const dir = join(incoming.dir, nonce);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    return { why: `${OWN_FOLDER}/incoming cannot hold this run's files (${(e as NodeJS.ErrnoException).code})` };
  }
  return { dir };
}

/**
 * The run's staging folder removed, but for the files of yours it still holds aside: each moved to
 * `.sparehand/yours/<nonce>-aside-N` (left where it is when it cannot be). Every file of yours kept so, this run's
 * and earlier ones' that you have not deleted yet (relative to root), for the run to say.
 */
export function removeStaging(root: string, nonce: string): string[] {
  const incoming = join(root, OWN_FOLDER, 'incoming');
  try {
    if (!lstatSync(join(root, OWN_FOLDER)).isDirectory() || !lstatSync(incoming).isDirectory()) return [];
  } catch {
    return [];
  }
  const stuck = clearStaging(root, nonce).map((name) => `${OWN_FOLDER}/incoming/${nonce}/${name}`);
  return [...stuck, ...listed(join(root, OWN_FOLDER, YOURS)).map((name) => `${OWN_FOLDER}/${YOURS}/${name}`)];
}

/** Where files of yours a run could not put back are kept, in `.sparehand/`. */
const YOURS = 'yours';

function listed(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * `.sparehand/incoming/<nonce>` removed, the files of yours it holds aside moved to `.sparehand/yours/` first: the
 * names of those that could not be moved (then the folder stays, holding only them).
 */
function clearStaging(root: string, nonce: string): string[] {
  const dir = join(root, OWN_FOLDER, 'incoming', nonce);
  const aside = listed(dir).filter((name) => ASIDE.test(name));
  const yours = aside.length > 0 ? ownFolder(root, YOURS) : undefined;
  const stuck = aside.filter((name) => {
    try {
      if (yours === undefined || 'why' in yours) return true;
      renameSync(join(dir, name), join(yours.dir, `${nonce}-${name}`));
      return false;
    } catch {
      return true;
    }
  });
  if (stuck.length === 0) rmSync(dir, { recursive: true, force: true });
  else for (const name of listed(dir)) if (!stuck.includes(name)) rmSync(join(dir, name), { recursive: true, force: true });
  return stuck;
}

/** `.sparehand/conflicts/<time>-<nonce start>`, made now (relative to root): one folder per run; undefined when it cannot be. */
export function makeConflictsFolder(root: string, startedAt: Date, nonce: string): string | undefined {
  const conflicts = ownFolder(root, 'conflicts');
  if ('why' in conflicts) return undefined;
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/:/g, '-');
  const name = `${stamp}-${nonce.slice(0, 4)}`;
  try {
    mkdirSync(join(conflicts.dir, name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  return join(OWN_FOLDER, 'conflicts', name);
}

/** Whether the file system at `dir` treats names that differ only in case as one (probed with a file). */
export function foldsCase(dir: string): boolean {
  const probe = join(dir, `case-probe-${process.pid}`);
  writeFileSync(probe, '');
  try {
    lstatSync(join(dir, `CASE-PROBE-${process.pid}`));
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

/**
 * A scratch folder for one run's temporary files (the list of ignored paths for rsync): in the temp folder, else —
 * where a sandbox keeps that read-only — in `.sparehand/tmp` of the project. The caller removes it.
 */
export function scratchFolder(root: string, prefix: string): string {
  try {
    return mkdtempSync(join(tmpdir(), prefix));
  } catch (e) {
    const tmp = ownFolder(root, 'tmp');
    if ('why' in tmp) throw e;
    return mkdtempSync(join(tmp.dir, prefix));
  }
}
