// Every file sparehand writes for the user goes through here: temp file + fsync + rename, never truncated. The temp
// file has a name sparehand can tell from the user's (`.<name>.sparehand-tmp-<pid>-<random>`), so that one left by
// a killed process is removed by the next install or uninstall (write-file-atomic's `<name>.<hash>` could not be).
// fs.promises, not node:fs/promises: in a CommonJS bundle that is read when first used, and loading it (with the
// readline and watcher modules it pulls in) costs the hook's heavy path ~2 ms, which only reads its config here.
import { existsSync, promises as fsp, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { processAlive } from './pid.js';
import { replaceOwnFile } from './state/own-file.js';

const TEMP = /^\..+\.sparehand-tmp-(\d+)-[0-9a-z]+$/;

/**
 * The file a write to `path` must replace: `path`, or where its symlink (chain) points, so that a settings file a
 * dotfiles manager links (stow, chezmoi, home-manager) gets the change and stays a link. A dangling link's target.
 */
export async function writeTarget(path: string): Promise<string> {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    const st = await fsp.lstat(at).catch(() => undefined);
    if (!st?.isSymbolicLink()) return at;
    at = resolve(dirname(at), await fsp.readlink(at));
  }
  return at;
}

/**
 * Writes `data` to `path` atomically (a symlink's target: writeTarget). The mode is `mode`, else the existing file's,
 * else 0644 (less the umask).
 */
export async function writeFileAtomically(given: string, data: string, options: { mode?: number } = {}): Promise<void> {
  const path = await writeTarget(given);
  await fsp.mkdir(dirname(path), { recursive: true });
  const mode = options.mode ?? (await fsp.stat(path).catch(() => undefined))?.mode;
  const tmp = join(dirname(path), `.${basename(path)}.sparehand-tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  const file = await fsp.open(tmp, 'wx', mode === undefined ? 0o644 : mode & 0o7777);
  try {
    // open()'s mode passes through the umask: a 0600 original must not come back 0644 (or the reverse).
    if (mode !== undefined) await file.chmod(mode & 0o7777);
    await file.writeFile(data);
    await file.sync();
    await file.close();
    await fsp.rename(tmp, path);
  } catch (e) {
    await file.close().catch(() => {});
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}

/** The folders `mkdir -p` would create for `path`'s folder, outermost first. */
export function missingDirs(path: string): string[] {
  const missing: string[] = [];
  for (let dir = dirname(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  return missing;
}

/** Removes the temp files a killed sparehand left in `dir` (those of a process still running stay). */
export function removeStaleTemps(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP.exec(name);
    if (m && !processAlive(Number(m[1]))) rmSync(join(dir, name), { force: true });
  }
}

/**
 * One of sparehand's own state files (not the user's), written whole or not at all and readable by this user only:
 * `<file>.<pid>` made anew (never through a link), then a rename (lib/state/own-file.ts). Throws as writeFileSync does.
 */
export const writeOwnFileSync = replaceOwnFile;
