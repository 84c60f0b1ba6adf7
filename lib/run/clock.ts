// A run's time bounds, from sparehand's start (docs/run.md "Time bounds"): `--timeout` covers the whole run —
// connecting, waiting for a slot, sending, installing dependencies, the command, its files coming back. With
// --or-local, a worker has half of it to start the command; after that the command runs here with what is left,
// so a worker that does not answer costs the run at most half its time, never all of it.
import { MAX_TIMER_MS } from '../timers.js';

export interface RunClock {
  /** When sparehand started (Date.now()). */
  start: number;
  /** When the whole run must have ended, or undefined without --timeout. */
  deadline: number | undefined;
  /** When the command must have started on a worker (deadline, or halfway there with --or-local). */
  startBy: number | undefined;
  /** The limit as asked, when it is more than a timer holds (then the deadline is what a timer holds). */
  asked?: number;
}

export function runClock(timeoutMs: number | undefined, orLocal: boolean, start = Date.now()): RunClock {
  if (timeoutMs === undefined) return { start, deadline: undefined, startBy: undefined };
  // (A limit past what a timer holds, some 24 days, is held to that: every timer made from the deadline holds it.)
  const ms = Math.min(timeoutMs, MAX_TIMER_MS);
  return {
    start,
    deadline: start + ms,
    startBy: start + (orLocal ? Math.floor(ms / 2) : ms),
    ...(ms < timeoutMs ? { asked: timeoutMs } : {}),
  };
}

/** Milliseconds left until `at` (never negative); undefined when there is no bound. */
export function msLeft(at: number | undefined, now = Date.now()): number | undefined {
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** `--timeout 2m` as the user gave it (for lines). */
export function shownTimeout(clock: RunClock): string {
  if (clock.deadline === undefined) return 'none';
  const s = Math.round((clock.asked ?? clock.deadline - clock.start) / 1000);
  return s % 60 === 0 && s >= 60 ? `${s / 60}m` : `${s}s`;
}
