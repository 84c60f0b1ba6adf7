// Which of the command's files stay on the worker because they are its platform's native code and do not run
// here (decide.ts Known.foreign; docs/run.md "Mac laptop, Linux worker"). The same platform on both sides: none.
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { platformHere } from '../platform/here.js';
import { keptOnWorker } from '../platform/native-code.js';
import { nativeCodeOfFile } from '../platform/of-file.js';
import { type Platform, differenceLabels, samePlatform } from '../platform/platform.js';
import { knownWorkerPlatform } from '../remote/worker-facts.js';
import type { Change } from '../remote/change.js';

/** The smallest file any of the formats can be (an ELF header is 52 bytes, a Mach-O one 28). */
const SMALLEST = 28;

/**
 * For each change, the worker's platform as people read it when its content (as staged here) is native code that
 * stays there, else undefined. The worker's platform is the one its program reported in this run, else the one
 * last recorded for it.
 */
export function foreignCheck(ctx: Pick<Context, 'home' | 'env'>, worker: Worker, reported: Platform | undefined): (c: Change) => string | undefined {
  const there = reported ?? knownWorkerPlatform(ctx, worker);
  const here = platformHere(ctx.env).platform;
  if (there === undefined || samePlatform(here, there)) return () => undefined;
  const label = differenceLabels(here, there).there;
  const seen = new Map<string, boolean>();
  return (c) => {
    if (c.type !== 'f' || c.staged === undefined || c.size < SMALLEST) return undefined;
    let kept = seen.get(c.staged);
    if (kept === undefined) {
      const code = nativeCodeOfFile(c.staged);
      kept = code !== undefined && keptOnWorker(code, here, there);
      seen.set(c.staged, kept);
    }
    return kept ? label : undefined;
  };
}
