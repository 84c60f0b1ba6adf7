// Claiming a slot: the worker itself gives one (or says all are busy) in the session the run will live in, so
// machines that share a worker never run more than its slots at once. Waits while all are busy; with --or-local
// and local slots, in the local queue too (local-slots.ts), taking whichever frees first: a worker's slot or one
// here. Runs of this machine (with --or-local or not) ask a worker in the queue's order: not while an earlier run
// waits for it.
import type { Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { connect } from '../remote/connection.js';
import type { Session } from '../remote/session.js';
import { REMEMBER_MS, rememberedNoAnswer } from '../remote/unreachable.js';
import { msLeft } from './clock.js';
import { leastBusyFirst } from './runs-here.js';
import type { RunSignals } from './signals.js';
import type { LocalTurn } from './local-slots.js';
import { waitingLine } from './local-wait.js';

const WAIT_POLL_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or undefined when it has not settled within `ms` (no bound when ms is undefined). */
async function inTime<T>(p: Promise<T>, ms: number | undefined): Promise<T | undefined> {
  if (ms === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** One try at a worker: the session that claims a slot there, and whatever the caller started beside it. */
export interface Attempt {
  session: Session;
  /** Stops what was started for this worker (its sync) and ends the session: the slot, if any, goes. */
  abandon: () => void;
}

export type Claim<A extends Attempt> =
  /** A slot, held by the attempt's session until it ends. */
  | { worker: Worker; slot: number; attempt: A; waited: boolean; waitedMs: number }
  /** The worker will not run it (no perl): the reason. */
  | { refused: string; worker: Worker }
  /** Every slot of every reachable worker is busy, and the run goes here (its local slot held, if it has a turn). */
  | { busy: true }
  /** No worker could be reached: why, for each. */
  | { failures: SparehandError[] }
  /** A signal came while waiting. */
  | { stopped: true }
  /** No slot was had by `until`: why (waiting for one, or for a worker to answer). */
  | { late: string };

/**
 * Asks each reachable worker for a slot, least busy (by this machine's runs) first. `open(worker, waited)` starts
 * the session that claims one there (and may start sending the project beside it: not after a wait, when the
 * project may have changed meanwhile and is sent once the slot is had).
 */
export async function claimSlot<A extends Attempt>(
  ctx: Context,
  candidates: readonly Worker[],
  opts: { orLocal: boolean; signals: RunSignals; open: (worker: Worker, waited: boolean) => A; until?: number | undefined; turn?: LocalTurn | undefined },
): Promise<Claim<A>> {
  const failures: SparehandError[] = [];
  let pool = [...candidates];
  let waiting = false;
  const started = Date.now();
  const { turn } = opts;
  const stayedBusy = (): string => `all slots on ${pool.map((w) => w.name).join(', ')} stayed busy`;
  while (pool.length > 0) {
    let busy = false;
    // Workers an earlier run of this machine waits for: its turn there comes first.
    const ahead = turn?.state.kind === 'waiting' ? turn.state.workers : undefined;
    for (const worker of leastBusyFirst(ctx, pool)) {
      if (opts.signals.received) return { stopped: true };
      if (turn?.slot !== undefined) return { busy: true };
      if (ahead?.has(worker.name)) {
        busy = true;
        continue;
      }
      // One that did not answer a moment ago is not waited for again (unreachable.ts).
      const silent = rememberedNoAnswer(ctx, worker);
      if (silent) {
        const ago = Math.round((Date.now() - silent.at) / 1000);
        failures.push(
          new SparehandError('SSH', `${silent.why} ${ago}s ago; not asked again for ${Math.ceil((REMEMBER_MS - (Date.now() - silent.at)) / 1000)}s`, {
            hint: `\`sparehand worker check ${worker.name}\` asks it now`,
          }),
        );
        pool = pool.filter((w) => w !== worker);
        continue;
      }
      const left = msLeft(opts.until);
      if (left === 0) return { late: waiting ? stayedBusy() : 'no worker answered in time' };
      try {
        // The connection waits at most 5 s, and never past the time the run has to start the command.
        await connect(ctx, worker, undefined, { timeoutS: left === undefined ? undefined : Math.max(1, Math.min(5, Math.floor(left / 1000))) });
      } catch (e) {
        if (!isSparehandError(e)) throw e;
        failures.push(e);
        pool = pool.filter((w) => w !== worker);
        continue;
      }
      let attempt: A;
      try {
        attempt = opts.open(worker, waiting);
      } catch (e) {
        // Nothing to hold the worker's copy with (sparehand's folders cannot be written): the next worker, or here.
        if (!isSparehandError(e)) throw e;
        failures.push(e);
        pool = pool.filter((w) => w !== worker);
        continue;
      }
      opts.signals.react(() => attempt.abandon());
      const answer = await inTime(attempt.session.claimed, msLeft(opts.until));
      opts.signals.react(undefined);
      if (answer === undefined) {
        attempt.abandon();
        // Asked again while waiting: the time ran out because its slots stayed busy.
        return { late: waiting ? stayedBusy() : `${worker.name} gave no slot in time` };
      }
      if ('slot' in answer && !opts.signals.received)
        return { worker, slot: answer.slot, attempt, waited: waiting, waitedMs: waiting ? Date.now() - started : 0 };
      attempt.abandon();
      if (opts.signals.received) return { stopped: true };
      if ('refused' in answer) return { refused: answer.refused, worker };
      if ('busy' in answer) busy = true;
      else {
        // The session ended before it answered (the connection dropped): try the others.
        failures.push(
          new SparehandError('SSH', `worker "${worker.name}" closed the session before giving a slot`, {
            hint: `try \`sparehand worker check ${worker.name}\``,
          }),
        );
        pool = pool.filter((w) => w !== worker);
      }
    }
    if (!busy) break;
    // --or-local without local slots (local.slots 0): here at once, as many as come.
    if (opts.orLocal && turn === undefined) return { busy: true };
    const left = msLeft(opts.until);
    if (left === 0) return { late: stayedBusy() };
    const names = pool.map((w) => w.name);
    if (turn) {
      // In the queue: a run without --or-local only for the workers' turn (its ticket keeps later runs off them).
      await turn.join(names, opts.orLocal);
      // A local slot was free (or the queue cannot be used: the run goes here at once, saying why).
      if (opts.orLocal && turn.state.kind !== 'waiting') return { busy: true };
    }
    const queued = turn?.state.kind === 'waiting' ? turn : undefined;
    if (opts.orLocal && queued) {
      if (!queued.announced) say(ctx, waitingLine(queued, names, opts.until));
      queued.announced = true;
    } else if (!waiting)
      say(ctx, `all slots on ${names.join(', ')} are busy; waiting for one${left === undefined ? '' : ` (at most ${Math.ceil(left / 1000)}s)`}`);
    waiting = true;
    // Asked again every second or so, or at once when a run ahead leaves the queue (its turn is over).
    await Promise.race([sleep(Math.min(WAIT_POLL_MS + Math.random() * WAIT_POLL_MS, left ?? Infinity)), ...(queued ? [queued.changed()] : [])]);
    if (opts.orLocal && turn && turn.state.kind !== 'waiting') return { busy: true };
  }
  return { failures };
}
