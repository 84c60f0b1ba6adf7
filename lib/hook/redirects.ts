// "Refuse once, then let the same command through": per tool and session, under the user's cache folder, bounded.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { cacheDir } from '../paths.js';

const MAX_SESSIONS = 200;
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

const hash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** True when this command was refused before in this session; otherwise records it and returns false. */
export function seenBefore(ctx: Pick<Context, 'home' | 'env'>, agent: string, session: string, command: string): boolean {
  const dir = join(cacheDir(ctx), 'redirects');
  const file = join(dir, hash(`${agent}\0${session}`));
  const line = hash(command);
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').split('\n');
  } catch {
    mkdirSync(dir, { recursive: true });
    prune(dir);
  }
  if (lines.includes(line)) return true;
  appendFileSync(file, `${line}\n`);
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
