// Whole-folder snapshots for install tests: every file's bytes, by relative path (with `dirs`, every folder too, as
// `path/`). sparehand's V8 code cache (~/.cache/sparehand/v8, written by every CLI run, not by install) and its copy of
// the last good config are not part of what a command did to the user's files.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AgentSpec } from '../../lib/agents/types.js';

const CODE_CACHE = join('.cache', 'sparehand', 'v8');
/** The last config that parsed (lib/config-kept.ts), kept by every command that reads the config. */
const KEPT_CONFIG = join('.cache', 'sparehand', 'config.last-good.json');
const CACHES = new Set([CODE_CACHE, KEPT_CONFIG]);
const CACHE_DIRS = new Set(['.cache/', '.cache/sparehand/']);

/** Whether the folder holds nothing but sparehand's caches (and folders holding only those). */
const onlyCaches = (root: string, dir: string): boolean =>
  readdirSync(dir, { withFileTypes: true }).every((e) => {
    const p = join(dir, e.name);
    return CACHES.has(relative(root, p)) || (e.isDirectory() && CACHE_DIRS.has(`${relative(root, p)}/`) && onlyCaches(root, p));
  });

export function tree(root: string, opts: { dirs?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (CACHES.has(relative(root, p))) continue;
      if (e.isDirectory()) {
        walk(p);
        const rel = `${relative(root, p)}/`;
        // The folders that hold the caches are there for them alone.
        if (opts.dirs && !(CACHE_DIRS.has(rel) && onlyCaches(root, p))) out[rel] = '';
      } else out[relative(root, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}

/** Makes every tool in `agents` count as used in `home` (its first own folder exists), as `install all` asks. */
export function toolsFound(home: string, agents: readonly AgentSpec[]): void {
  for (const a of agents) {
    const f = a.program?.folders?.({ home, env: { HOME: home } })[0];
    if (f) mkdirSync(f, { recursive: true });
  }
}
