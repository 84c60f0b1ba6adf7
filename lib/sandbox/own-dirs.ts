// Where sparehand writes its own files when its usual folders cannot be written: a coding tool's sandbox keeps HOME
// read-only (Landlock, a read-only bind mount, Seatbelt) but gives its commands a temp folder. Nothing
// sparehand writes for itself may fail a run: a write goes to the first folder that takes it, or is skipped.
// (Loaded by the hook's hot path too: node:fs and node:path only.)
import { lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Env = { env: NodeJS.ProcessEnv };

/** What each folder turned out to be in this process (a sandbox does not change while a command runs). */
const known = new Map<string, boolean>();

/**
 * Whether `dir` can be made and written in (a file made and removed: a read-only bind mount or a Landlock rule lets
 * `mkdir -p` of an existing folder succeed and refuses the write). `own`: the folder must also be a real folder of
 * this user's, not a link (for folders in a shared temp folder that another user could have made first).
 */
export function canWrite(dir: string, opts: { own?: boolean } = {}): boolean {
  const key = `${opts.own ? 'own:' : ''}${dir}`;
  let ok = known.get(key);
  if (ok !== undefined) return ok;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (opts.own) {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (process.getuid !== undefined && st.uid !== process.getuid())) throw new Error('not ours');
    }
    const probe = join(dir, `.sparehand-probe-${process.pid}`);
    writeFileSync(probe, '', { mode: 0o600 });
    rmSync(probe, { force: true });
    ok = true;
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
  if (canWrite(usual)) return usual;
  const temp = tempOwnDir(c);
  if (canWrite(temp, { own: true }) && canWrite(join(temp, sub))) return join(temp, sub);
  return extra.find((d) => canWrite(d));
}

/** Where a file of sparehand's may already be: the usual folder first, then its temp fallback (for reading). */
export function readDirs(c: Env, usual: string, sub: string): string[] {
  return [usual, join(tempOwnDir(c), sub)];
}
