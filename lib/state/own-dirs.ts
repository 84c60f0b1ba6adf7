// Where sparehand writes its own files when its usual folders cannot be written: a coding tool's sandbox keeps HOME
// read-only (Landlock, a read-only bind mount, Seatbelt) but gives its commands a temp folder. Nothing
// sparehand writes for itself may fail a run: a write goes to the first folder that takes it, or is skipped.
// A folder is used only when it is a private one of this user's (lib/state/own-file.ts says what is checked).
// (Loaded by the hook's hot path too: node:fs and node:path only.)
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Said, createOwnFile, ownFolder } from './own-file.js';

type Env = { env: NodeJS.ProcessEnv } & Said;

/** What each folder turned out to be in this process (a sandbox does not change while a command runs). */
const known = new Map<string, boolean>();

/**
 * Whether `dir` can be made and written in (a file made and removed: a read-only bind mount or a Landlock rule lets
 * `mkdir -p` of an existing folder succeed and refuses the write). `own`: it must also be a private folder of this
 * user's (ownFolder: not a link, not another user's, in a shared temp folder that another user could have made
 * first); one that is not is ignored with a line to `said`.
 */
export function canWrite(dir: string, opts: { own?: boolean; said?: Said } = {}): boolean {
  const key = `${opts.own ? 'own:' : ''}${dir}`;
  let ok = known.get(key);
  if (ok !== undefined) return ok;
  try {
    if (opts.own) {
      if (!ownFolder(opts.said ?? {}, dir, { make: true })) throw new Error('not ours');
    } else mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Made anew (never through a link planted under that name) and removed.
    const probe = join(dir, `.sparehand-probe-${process.pid}`);
    rmSync(probe, { force: true });
    ok = createOwnFile({}, probe) === 'made';
    rmSync(probe, { force: true });
  } catch {
    ok = false;
  }
  known.set(key, ok);
  return ok;
}

/** `$TMPDIR/sparehand-<uid>`: the folder a sandbox leaves writable (each gives its commands a temp folder). */
export function tempOwnDir(c: Env): string {
  const uid = process.getuid?.() ?? 'user';
  return join(c.env.TMPDIR || '/tmp', `sparehand-${uid}`);
}

/**
 * The first folder that can be written: `usual` (sparehand's own folder under HOME), else `sub` of the temp folder
 * (tempOwnDir), else the `extra` ones in order; undefined when none can (the caller skips the write).
 */
export function writableDir(c: Env, usual: string, sub: string, extra: readonly string[] = []): string | undefined {
  if (canWrite(usual, { own: true, said: c })) return usual;
  const temp = join(tempOwnDir(c), sub);
  if (canWrite(temp, { own: true, said: c })) return temp;
  return extra.find((d) => canWrite(d));
}

/**
 * Where a file of sparehand's may already be: the usual folder first, then its temp fallback (for reading, with
 * readOwnFile: a folder or file there that is not this user's own is ignored).
 */
export function readDirs(c: Env, usual: string, sub: string): string[] {
  return [usual, join(tempOwnDir(c), sub)];
}
