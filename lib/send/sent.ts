// Which of the command's changed paths rsync sends (tracked, or untracked and not ignored: the project's own
// files, whose truth is here) and which it does not (outputs, ignored here: whose truth is the last build).
// git decides, as it does for the way up (lib/send/rsync-up.ts): `git check-ignore` over the changed paths at once.
import { rmSync } from 'node:fs';
import { scratchFolder } from '../state/own-folder.js';
import { join } from 'node:path';
import { capture } from '../process.js';
import { gitRoot } from '../project-root.js';

/** The paths among `paths` that git ignores under `root` (tracked files never are). On any failure: none (all count as sent). */
export async function ignoredAmong(root: string, paths: readonly string[], env: NodeJS.ProcessEnv): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  let scratch: string | undefined;
  try {
    let args = ['-C', root, 'check-ignore', '-z', '--stdin'];
    if (gitRoot(root) !== root) {
      scratch = scratchFolder(root, 'sparehand-ignore-');
      await capture('git', ['init', '-q', '--bare', join(scratch, 'git')], { env });
      args = [`--git-dir=${join(scratch, 'git')}`, `--work-tree=${root}`, '-C', root, 'check-ignore', '-z', '--stdin', '--no-index'];
    }
    const r = await capture('git', args, { env, input: `${paths.join('\0')}\0` });
    if (r.code !== 0 && r.code !== 1) return new Set();
    return new Set(r.stdout.split('\0').filter(Boolean));
  } catch {
    return new Set();
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}
