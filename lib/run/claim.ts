// Claiming a slot: a free one on a reachable worker, waiting (or running here) when all are busy.
import type { Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { type SparehandError, isSparehandError } from '../errors.js';
import { connect } from '../remote/connection.js';
import { type SlotLock, lockAny } from '../remote/slots.js';
import type { RunSignals } from './signals.js';

const WAIT_POLL_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Claim {
  lock?: SlotLock;
  /** Why each worker tried could not be reached. */
  failures: SparehandError[];
  /** Every slot was busy (and the caller did not want to wait). */
  busy: boolean;
}

/** A free slot on a reachable worker, least busy first; waits while all are busy unless `orLocal`, or a signal came. */
export async function claimSlot(ctx: Context, candidates: readonly Worker[], orLocal: boolean, signals: RunSignals): Promise<Claim> {
  const failures: SparehandError[] = [];
  let pool = [...candidates];
  let waiting = false;
  while (pool.length > 0 && !signals.received) {
    const lock = lockAny(ctx, pool);
    if (!lock) {
      if (orLocal) return { failures, busy: true };
      if (!waiting) say(ctx, `all slots on ${pool.map((w) => w.name).join(', ')} are busy; waiting for one`);
      waiting = true;
      await sleep(WAIT_POLL_MS);
      continue;
    }
    try {
      await connect(ctx, lock.worker);
      if (signals.received) {
        lock.release();
        break;
      }
      return { lock, failures, busy: false };
    } catch (e) {
      lock.release();
      if (!isSparehandError(e)) throw e;
      failures.push(e);
      pool = pool.filter((w) => w !== lock.worker);
    }
  }
  return { failures, busy: false };
}
