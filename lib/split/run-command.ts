// `run --split`: plans the shards and runs them, or says in one line why the command runs whole (then the caller
// runs it as any run). Loaded only by runs that ask to split.
import { loadConfigOrKept } from '../config.js';
import { type Context, say } from '../context.js';
import { type SplitOptions, runShards, splitPlan } from './run-split.js';

/** The worst shard's exit status, or undefined when the command runs whole (the line saying why is said). */
export async function runSplit(ctx: Context, command: string, o: SplitOptions & { local?: boolean | undefined }): Promise<number | undefined> {
  if (o.local) {
    say(ctx, 'not split: --local runs it here, whole');
    return undefined;
  }
  // A broken file is named by the run itself, which loads it next when the command runs whole.
  const config = loadConfigOrKept(ctx, () => {});
  const { plan } = await splitPlan(ctx, config, command, o);
  if ('whole' in plan) {
    say(ctx, `not split: ${plan.whole}; it runs whole`);
    return undefined;
  }
  return runShards(ctx, plan, o);
}
