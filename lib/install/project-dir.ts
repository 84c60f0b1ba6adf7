// The project `agent status` and `agent test` look at: the git top level of the current folder, else the folder.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function projectDir(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}
