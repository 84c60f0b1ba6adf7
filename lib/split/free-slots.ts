// `--split auto`: how many slots are free now — on each worker (the worker itself counts them, as `status` asks),
// and here when local.slots allows and the run may go here (--or-local).
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { expandPools } from '../remote/pools.js';
import { workerStatus } from '../remote/status.js';
import { findWorker } from '../remote/workers.js';
import { localSlotCount, peekSlots } from '../run/local-slots.js';
import { isSparehandError } from '../errors.js';

export interface FreeSlots {
  total: number;
  /** `w1 2, w2 1, here 1`: where they are, for the line that says how many shards. */
  where: string;
}

export async function freeSlots(ctx: Context, config: Config, o: { orLocal?: boolean | undefined; worker?: string | undefined }): Promise<FreeSlots> {
  const name = o.worker ?? ctx.env.SPAREHAND_WORKER;
  let workers = config.workers ?? [];
  if (name) {
    try {
      workers = [findWorker(config, name)];
    } catch (e) {
      if (!isSparehandError(e)) throw e;
      workers = [];
    }
  }
  const pools = workers.some((w) => w.kubernetes) ? (await expandPools(ctx, workers)).workers : workers;
  const seen = await Promise.all(pools.map((w) => workerStatus(ctx, w).catch(() => undefined)));
  const parts: string[] = [];
  let total = 0;
  for (const s of seen) {
    if (!s?.reachable || s.free <= 0) continue;
    total += s.free;
    parts.push(`${s.name} ${s.free}`);
  }
  if (o.orLocal) {
    const { count } = localSlotCount(config);
    const held = count === 0 ? undefined : await peekSlots(ctx, count);
    const here = held === undefined ? 0 : Math.max(0, count - held.held.length - held.waiting.length);
    if (here > 0) {
      total += here;
      parts.push(`here ${here}`);
    }
  }
  return { total, where: parts.join(', ') || 'none' };
}
