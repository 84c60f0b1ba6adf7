// "Refuse once, then let the same command through": per tool and session, under the user's cache folder, bounded.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { cacheDir } from '../paths.js';
import { writableDir } from '../state/own-dirs.js';
import { appendOwnFile, readOwnFile } from '../state/own-file.js';

const MAX_SESSIONS = 200;
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** 2 × 32-bit FNV-1a, hex: a stable file/line name without loading node:crypto on the hot path. */
export function hash(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** True when this command was refused before in this session; otherwise records it and returns false. */
export function seenBefore(ctx: Pick<Context, 'home' | 'env'>, agent: string, session: string, command: string): boolean {
  // Where the cache folder is read-only (a hook run inside a sandbox), the temp folder it leaves writable.
  // Nothing said about a file that is not sparehand's (the hook's stderr is the tool's): it is not read.
  const dir = writableDir({ env: ctx.env }, join(cacheDir(ctx), 'redirects'), 'redirects') ?? join(cacheDir(ctx), 'redirects');
  const file = join(dir, hash(`${agent}\0${session}`));
  const line = hash(command);
  const text = readOwnFile({}, file);
  if (text?.split('\n').includes(line)) return true;
  if (text === undefined) {
    try {
      prune(dir);
    } catch {
      // no folder yet
    }
  }
  // Unrecorded, the command would be refused on every try: the hook's one catch leaves it alone instead.
  if (!appendOwnFile({}, file, `${line}\n`)) throw new Error(`cannot record the refusal in ${file}`);
  return false;
}

/** Keeps the folder small: drops sessions older than a week, and the oldest beyond MAX_SESSIONS. */
function prune(dir: string): void {
  const now = Date.now();
  const files = readdirSync(dir)
    .map((name) => {
      try {
        return { path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs };
      } catch {
        return undefined;
      }
    })
    .filter((f) => f !== undefined)
    .sort((a, b) => b.mtime - a.mtime);
  files.forEach((f, i) => {
    if (i >= MAX_SESSIONS - 1 || now - f.mtime > MAX_AGE_MS) rmSync(f.path, { force: true });
  });
}
