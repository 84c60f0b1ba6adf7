// Whole-folder snapshots for install tests: every file's bytes, by relative path. sparehand's V8 code cache
// (~/.cache/sparehand/v8, written by every CLI run) is not part of what a command did to the user's files.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const CODE_CACHE = join('.cache', 'sparehand', 'v8');

export function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (relative(root, p) !== CODE_CACHE) walk(p);
      } else out[relative(root, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}
