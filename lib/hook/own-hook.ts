// One call, one answer: a tool that also runs another tool's settings hooks beside its own calls both of sparehand's
// entries for the same call. The entry installed for another tool leaves such a call to
// the caller's own entry when that one is there (the caller's `hookFiles`), and answers it only where it is not.
import { readFileSync, statSync } from 'node:fs';
import type { HookSpec } from '../agents/types.js';
import type { Context } from '../context.js';
import { projectRoot } from '../project-root.js';

const MAX_SETTINGS = 1024 * 1024;

/** A regular file's text (a FIFO or a folder at the path is no hook file: not read, so never waited on). */
function fileText(path: string): string | undefined {
  try {
    const st = statSync(path);
    return st.isFile() && st.size <= MAX_SETTINGS ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** Whether sparehand's hook for `caller` is in one of the files `caller` reads its hooks from, for a call in `cwd`. */
export function ownHookInstalled(ctx: Pick<Context, 'home' | 'env' | 'cwd'>, caller: HookSpec, cwd: string | undefined): boolean {
  if (!caller.hookFiles) return false;
  const mention = new RegExp(`agent hook --for[ =]${caller.id}(?![\\w-])`);
  const files = caller.hookFiles({ home: ctx.home, env: ctx.env, project: projectRoot(cwd ?? ctx.cwd) });
  return files.some((f) => mention.test(fileText(f) ?? ''));
}
