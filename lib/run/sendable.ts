// Project root safety: what `run` will never send to a worker. Outside a git repository the current folder is the
// root, so a run from `~` or `/` would copy a home folder or a file system (keys, credentials, history).
import { type Stats, lstatSync, readdirSync } from 'node:fs';
import { realOrSame } from '../read-quietly.js';
import { join, relative, sep } from 'node:path';
import type { Config } from '../config.js';
import { excluded, skipMatcher, skipRules } from '../remote/sync-rules.js';

/** Outside git, a tree beyond these is not a project (docs/run.md "Project root safety"). */
export const MAX_FILES = 200_000;
export const MAX_BYTES = 5 * 1024 ** 3;

/** Why `root` is no project at all (`/`, the home folder or a folder above it), or undefined. No run sends it. */
export function notAProject(root: string, home: string): string | undefined {
  const dir = realOrSame(root);
  const h = realOrSame(home);
  if (dir === sep) return 'it is the root of the file system, not a project';
  if (dir === h) return 'it is your home folder, not a project';
  if (!relative(dir, h).startsWith('..')) return 'it holds your home folder';
  return undefined;
}

/** Why `root` must not be sent to a worker, or undefined when it may be. */
export function whyNotSendable(root: string, opts: { home: string; git: boolean; config: Config }): string | undefined {
  return notAProject(root, opts.home) ?? (opts.git ? undefined : tooLarge(realOrSame(root), opts.config));
}

/** Counts what would be sent (excluded folders skipped), stopping as soon as a limit is passed. */
function tooLarge(root: string, config: Config): string | undefined {
  const skipped = skipMatcher(skipRules(excluded(config)));
  let files = 0;
  let bytes = 0;
  const stack = [''];
  while (stack.length > 0) {
    const rel = stack.pop() as string;
    let names: string[];
    try {
      names = readdirSync(join(root, rel));
    } catch {
      continue;
    }
    for (const name of names) {
      const p = rel ? `${rel}/${name}` : name;
      let st: Stats;
      try {
        st = lstatSync(join(root, p));
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!skipped(`${p}/`)) stack.push(p);
        continue;
      }
      if (skipped(p)) continue;
      files++;
      bytes += st.size;
      if (files > MAX_FILES) return `it holds more than ${MAX_FILES.toLocaleString('en-US')} files outside a git repository`;
      if (bytes > MAX_BYTES) return 'it holds more than 5 GB outside a git repository';
    }
  }
  return undefined;
}
