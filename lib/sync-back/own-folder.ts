// sparehand's own folder in the project, `.sparehand/`: never synced, ignored by git through its own .gitignore.
// What comes back is staged in it (the same file system as the project, so a rename puts a file in place), and
// the worker's versions of conflicting files are kept in it, one folder per run.
import { lstatSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OWN_FOLDER = '.sparehand';
/** A staging folder this old belongs to a run that was killed: removed by the next run that brings files back. */
const STALE_MS = 3_600_000;

function own(root: string): string {
  const dir = join(root, OWN_FOLDER);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, '.gitignore'), '# sparehand: staging and the worker\'s versions of conflicting files\n*\n', { flag: 'wx' });
  } catch {
    /* already there */
  }
  return dir;
}
/** `.sparehand/` in the project, made (with its .gitignore) if need be: also where a sandboxed run keeps its locks. */
export const ownFolder = own;

/** `.sparehand/incoming/<nonce>`, made now (absolute). */
export function makeStaging(root: string, nonce: string): string {
  const incoming = join(own(root), 'incoming');
  mkdirSync(incoming, { recursive: true });
  for (const old of readdirSync(incoming)) {
    const p = join(incoming, old);
    if (Date.now() - statSync(p).mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
  }
  const dir = join(incoming, nonce);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

export function removeStaging(root: string, nonce: string): void {
  rmSync(join(root, OWN_FOLDER, 'incoming', nonce), { recursive: true, force: true });
}

/** `.sparehand/conflicts/<time>-<nonce start>`, made now (relative to root): one folder per run. */
export function makeConflictsFolder(root: string, startedAt: Date, nonce: string): string {
  const stamp = startedAt.toISOString().replace(/\.\d+Z$/, '').replace(/:/g, '-');
  const rel = join(OWN_FOLDER, 'conflicts', `${stamp}-${nonce.slice(0, 4)}`);
  mkdirSync(join(own(root), 'conflicts'), { recursive: true });
  mkdirSync(join(root, rel), { recursive: true });
  return rel;
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
