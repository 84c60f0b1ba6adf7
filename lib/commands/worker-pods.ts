// The workers a command that acts on each worker goes through: a pool (`--kubernetes`) stands for its pods.
import type { Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { expandPools } from '../remote/pools.js';

/** The workers with each pool's running pods in its place; a pool that cannot be listed is said and left out. */
export async function podsToo(ctx: Context, workers: readonly Worker[]): Promise<Worker[]> {
  const pools = await expandPools(ctx, workers);
  for (const f of pools.failed) say(ctx, `${f.error.message}; skipped`);
  return pools.workers;
}
