// The last config that parsed, kept in the cache folder, so that a typo in the config file (a trailing comma)
// does not turn every hook off: the hook and `run` go on with the last good config (or the built-in defaults) and
// say which file and line is broken; the commands that write the config still refuse it.
import { mkdirSync, readFileSync } from 'node:fs';
import { writeOwnFileSync } from './fs-atomic.js';
import { join } from 'node:path';
import type { Context } from './context.js';
import { cacheDir } from './paths.js';

type Env = Pick<Context, 'home' | 'env'>;

const keptPath = (c: Env): string => join(cacheDir(c), 'config.last-good.json');

interface Kept {
  path: string;
  text: string;
  saved: string;
}

/** The kept copy of the config at `path`, if the last one that parsed was that file's. */
export function keptConfigText(c: Env, path: string): { text: string; saved: string } | undefined {
  try {
    const kept = JSON.parse(readFileSync(keptPath(c), 'utf8')) as Kept;
    return kept.path === path && typeof kept.text === 'string' ? { text: kept.text, saved: kept.saved } : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `text` (the config at `path`, which just parsed) unless it is the copy kept already. */
export function keepConfigText(c: Env, path: string, text: string): void {
  if (keptConfigText(c, path)?.text === text) return;
  const file = keptPath(c);
  try {
    mkdirSync(cacheDir(c), { recursive: true });
    writeOwnFileSync(file, `${JSON.stringify({ path, text, saved: new Date().toISOString() } satisfies Kept)}\n`);
  } catch {
    // A cache folder that cannot be written (a sandbox): the config itself was read; only the spare copy is missing.
  }
}
