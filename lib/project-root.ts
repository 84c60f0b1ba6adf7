// The project a command is about: the git top level of the current folder, else the folder itself. `run` syncs
// it; `agent status`, `agent test` and `doctor` look for project-level hooks there.
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The nearest folder holding `.git` (as git finds the top level), or undefined outside a git repository. */
export function gitRoot(cwd: string): string | undefined {
  // Walking up costs a few stats; `git rev-parse --show-toplevel` costs a process on every run.
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The folders from `cwd` up to `root`, both included, nearest first (none when `cwd` is not inside `root`). */
export function foldersUp(root: string, cwd: string): string[] {
  const folders: string[] = [];
  for (let dir = cwd; !relative(root, dir).startsWith('..'); dir = dirname(dir)) {
    folders.push(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  return folders;
}

/** How many folders below its project's root `cwd` is (0 at the root): how far a `../x` may climb and stay inside. */
export function depthInProject(cwd: string): number {
  const rel = relative(projectRoot(cwd), cwd);
  return rel === '' || rel.startsWith('..') ? 0 : rel.split(sep).length;
}

/** The git top level of `cwd`, or `cwd` itself. */
export function projectRoot(cwd: string): string {
  return gitRoot(cwd) ?? cwd;
}
