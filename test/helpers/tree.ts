// Whole-folder snapshots for install tests: every file's bytes, by relative path.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(root, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}
