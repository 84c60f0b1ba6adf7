// Waiting for a local slot before a run here: one line when it waits, never past the time the run has to start
// the command (then it runs anyway and says so), stopped by a signal like the rest of the run.
import { type Context, say } from '../context.js';
import type { Config } from '../config.js';
import { projectRoot } from '../project-root.js';
import { secs } from './report.js';
import { LocalTurn, localSlotCount } from './local-slots.js';
import { msLeft } from './clock.js';
import type { RunSignals } from './signals.js';

/**
 * The run's place in the local queue, or undefined when local.slots is 0 (runs here start at once) or this run is
 * started by a command sparehand runs (SPAREHAND_RUN=1): that command's slot is this run's, and waiting for
 * another would wait for itself.
 */
export function localTurn(ctx: Context, config: Config, command: string): LocalTurn | undefined {
  const { count } = localSlotCount(config);
  if (count === 0 || ctx.env.SPAREHAND_RUN === '1') return undefined;
  const run = {
    pid: process.pid,
    since: new Date().toISOString(),
    project: projectRoot(ctx.cwd),
    command: command.length > 200 ? `${command.slice(0, 199)}…` : command,
  };
  return new LocalTurn(ctx, count, run);
}

/** `waiting for a slot: 3 runs ahead, here and on box (at most 40s, then it runs anyway)`. */
export function waitingLine(turn: LocalTurn, workers: readonly string[], until: number | undefined): string {
  const ahead = turn.state.kind === 'waiting' ? turn.state.ahead : 0;
  const place = ahead === 0 ? `next in line, all ${turn.count} local slot${turn.count === 1 ? '' : 's'} busy` : `${ahead} run${ahead === 1 ? '' : 's'} ahead`;
  const left = msLeft(until);
  const bound = left === undefined ? '' : ` (at most ${Math.ceil(left / 1000)}s, then it runs anyway)`;
  return `waiting for a slot: ${place}, here${workers.length ? ` and on ${workers.join(', ')}` : ''}${bound}`;
}

export type Waited =
  /** The slot is held (or the queue could not be used: `note` says so); `ms` waited. */
  { ms: number; note?: string } | { stopped: NodeJS.Signals };

/**
 * Holds a local slot for the run, waiting (in turn) until `until` at most. `limit` names that bound for the line
 * that says it ran anyway (`half of --timeout 2m`).
 */
export async function waitForTurn(
  ctx: Context,
  turn: LocalTurn,
  o: { until: number | undefined; limit: string; signals?: RunSignals | undefined },
): Promise<Waited> {
  await turn.join([]);
  if (turn.state.kind === 'waiting') {
    if (!turn.announced) say(ctx, waitingLine(turn, [], o.until));
    turn.announced = true;
    const stop = await untilSettled(turn, o.until, o.signals);
    if (stop === 'signal') return { stopped: o.signals?.received ?? 'SIGTERM' };
    if (stop === 'late') {
      const ms = turn.waitedMs();
      turn.release();
      return { ms, note: `no local slot freed within ${o.limit} (waited ${secs(ms)}); running anyway` };
    }
  }
  if (turn.state.kind === 'failed') return { ms: turn.waitedMs(), note: `no local slot could be held (${turn.state.why}); running at once` };
  // A slot free at once is no wait (the helper's start is not worth a number).
  return { ms: turn.announced ? turn.waitedMs() : 0 };
}

/** Resolves when the turn settles ('held'), the time runs out ('late') or a signal comes ('signal'). */
async function untilSettled(turn: LocalTurn, until: number | undefined, signals: RunSignals | undefined): Promise<'held' | 'late' | 'signal'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise((resolve) => {
      void turn.settled.then(() => resolve('held'));
      const left = msLeft(until);
      if (left !== undefined) timer = setTimeout(() => resolve('late'), left);
      if (signals?.received) resolve('signal');
      signals?.react(() => resolve('signal'));
    });
  } finally {
    clearTimeout(timer);
    signals?.react(undefined);
  }
}
