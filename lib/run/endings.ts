// Every way a run ends, in one table: its exit status and its one `sparehand:` line (docs/run.md "Exit status").
// The places that end a run say which ending it is (a RunEnd) and `endRun` applies the row; an ending of sparehand's
// own before the command started is thrown as the one error, which lib/cli.ts alone turns into 125 under `run`.
import { type Context, say } from '../context.js';
import { type ErrorCode, SparehandError } from '../errors.js';
import { exitStatus } from '../process.js';
import { printable } from '../safe-text.js';

export type RunEnd =
  /** The command ran to its end, here or on a worker (its files back): its own status; the summary is report.ts's. */
  | { kind: 'ran'; status: number }
  /** A signal to sparehand stopped the run (waiting, sending, running or applying): 128+N, as the command would. */
  | { kind: 'signalled'; signal: NodeJS.Signals }
  /** `--timeout` (`limit`: `--timeout 5s`) was reached before the command started anywhere; `why`: where the time went. */
  | { kind: 'late'; limit: string; why: string }
  /** `--timeout` was reached on the worker before it started the command (`deps`: it was installing dependencies). */
  | { kind: 'late-on-worker'; limit: string; worker: string; deps: boolean }
  /** The command ran past `--timeout` on the worker: stopped there, nothing brought back. */
  | { kind: 'ran-past'; limit: string }
  /** The command ran past `--timeout` here: stopped (SIGTERM, then SIGKILL). */
  | { kind: 'ran-past-here'; limit: string }
  /** The command ended in time (`status`), but its files did not come back before `--timeout`; they stay in `there`. */
  | { kind: 'files-late'; status: number; limit: string; there: string }
  /** The worker said it could not run the command after it had started it: its fate is unknown. */
  | { kind: 'refused-after-start'; worker: string; why: string }
  /** The worker sent what is not sparehand's before the command's status: its fate is unknown. */
  | { kind: 'not-sparehands'; worker: string; why: string }
  /** The connection was lost while the command ran: its fate is unknown. */
  | { kind: 'lost-while-running'; worker: string }
  /** The command ended (`status`), but the report of what it changed cannot be trusted: its files stay in `there`. */
  | { kind: 'report-untrusted'; status: number; why: string; there: string }
  /** The connection was lost while the command's files came back: nothing was applied. */
  | { kind: 'lost-while-bringing-back'; worker: string }
  /** It would run here, but sparehand is outside the sandbox the user chose for the tool (sandbox/run-checks.ts). */
  | { kind: 'outside-sandbox'; why: string; outside: string }
  /** The connection was lost after the slot was given, before the command started (without --or-local). */
  | { kind: 'lost-before-start'; worker: string }
  /** The worker refused the run before the command started (the install failed, no perl…), without --or-local. */
  | { kind: 'worker-refused'; worker: string; why: string }
  /** No worker can run it (none reachable, the project refused, no such worker…), without --or-local. */
  | { kind: 'no-worker-can'; why: string; hint: string }
  /** No worker configured, without --or-local. */
  | { kind: 'no-worker-configured' }
  /** `sparehand run -- ''`. */
  | { kind: 'empty-command' }
  /** `--queue` without `--local`. */
  | { kind: 'queue-without-local' };

export type RunEndKind = RunEnd['kind'];

/**
 * A row: the exit status (`own`: the command's, `signal`: 128+N) and the line (`null`: none of its own). A row with
 * `thrown` ends the run as a SparehandError of that code, its line the message and `hint` the hint: printed, and
 * given its status, by lib/cli.ts.
 */
export interface Ending<E> {
  status: 'own' | 'signal' | 124 | 125 | 255;
  line: ((end: E) => string) | null;
  thrown?: ErrorCode;
  hint?: (end: E) => string;
}

const OR_LOCAL = 'or run with --or-local to run here when no worker can';

/** What a stop before the command started says after `stopped: `, and what the run's log keeps of it (run-log.ts). */
export function notStarted(end: Extract<RunEnd, { kind: 'late' | 'late-on-worker' }>): string {
  if (end.kind === 'late') return `${end.limit} was reached before the command started (${end.why}); nothing ran`;
  return `${end.limit} was reached before the command started on ${end.worker}${end.deps ? ' (it was installing dependencies)' : ''}; nothing ran`;
}

export const ENDINGS = {
  ran: { status: 'own', line: null },
  signalled: { status: 'signal', line: null },
  late: { status: 124, line: (e) => `stopped: ${notStarted(e)}` },
  'late-on-worker': { status: 124, line: (e) => `stopped: ${notStarted(e)}` },
  'ran-past': { status: 124, line: (e) => `stopped: the command ran past ${e.limit}; nothing was brought back` },
  'ran-past-here': { status: 124, line: (e) => `stopped: the command ran past ${e.limit}` },
  'files-late': {
    status: 'own',
    line: (e) =>
      `the command ended (exit ${e.status}), but its files did not come back within ${e.limit}; nothing was brought back, they stay in the worker's copy (${e.there})`,
  },
  'refused-after-start': {
    status: 255,
    line: (e) =>
      `${e.worker} said it could not run the command after it had started it (${printable(e.why)}); its fate is unknown and nothing was brought back`,
  },
  'not-sparehands': {
    status: 255,
    line: (e) => `${e.worker} sent something that is not sparehand's (${e.why}); its fate is unknown and nothing was brought back`,
  },
  'lost-while-running': {
    status: 255,
    line: (e) => `the connection to ${e.worker} was lost while the command ran; its fate is unknown and nothing was brought back`,
  },
  'report-untrusted': {
    status: 'own',
    line: (e) =>
      `the report of what the command changed cannot be trusted (${e.why}); nothing was brought back, the command's files stay in the worker's copy (${e.there})`,
  },
  'lost-while-bringing-back': {
    status: 255,
    line: (e) => `the connection to ${e.worker} was lost while the command's files came back; nothing was brought back`,
  },
  'outside-sandbox': { status: 125, line: (e) => `not running locally (${e.why}): ${e.outside}` },
  'lost-before-start': {
    status: 125,
    thrown: 'WORKER',
    line: (e) => `the connection to ${e.worker} was lost before the command started; nothing ran there`,
    hint: (e) => `try \`sparehand worker check ${e.worker}\`; ${OR_LOCAL}`,
  },
  'worker-refused': {
    status: 125,
    thrown: 'WORKER',
    line: (e) => `${e.worker}: ${e.why}`,
    hint: () => 'or run with --or-local to run here when the worker cannot',
  },
  'no-worker-can': { status: 125, thrown: 'WORKER', line: (e) => e.why, hint: (e) => `${e.hint}; ${OR_LOCAL}` },
  'no-worker-configured': {
    status: 125,
    thrown: 'WORKER',
    line: () => 'no worker is configured',
    hint: () => 'add one with `sparehand worker add NAME user@host`, or run with --or-local to run here',
  },
  'empty-command': {
    status: 125,
    thrown: 'USAGE',
    line: () => 'the command is empty',
    hint: () => "usage: sparehand run [options] -- '<command>'",
  },
  'queue-without-local': {
    status: 125,
    thrown: 'USAGE',
    line: () => '--queue goes with --local',
    hint: () => 'runs that may go here with --or-local queue for a local slot already',
  },
} satisfies { [K in RunEndKind]: Ending<Extract<RunEnd, { kind: K }>> };

/** The row of `end`, typed for it. */
function rowOf(end: RunEnd): Ending<RunEnd> {
  return ENDINGS[end.kind] as Ending<RunEnd>;
}

/** The exit status `end` gives. */
export function endStatus(end: RunEnd): number {
  const { status } = rowOf(end);
  if (status === 'own') return 'status' in end ? end.status : 0;
  if (status === 'signal') return exitStatus(null, 'signal' in end ? end.signal : 'SIGTERM');
  return status;
}

/** The endings that say no line of their own. */
type Silent = 'ran' | 'signalled';

/** The one line `end` says (without `sparehand: `), or undefined for an ending that says none of its own. */
export function endLine(end: Exclude<RunEnd, { kind: Silent }>): string;
export function endLine(end: RunEnd): string | undefined;
export function endLine(end: RunEnd): string | undefined {
  return rowOf(end).line?.(end);
}

/**
 * Ends the run as `end` says: its line on stderr and its exit status; or, for an ending thrown to the CLI's edge,
 * the SparehandError that lib/cli.ts prints and turns into the status.
 */
export function endRun(ctx: Pick<Context, 'stderr'>, end: RunEnd): number {
  const row = rowOf(end);
  const line = endLine(end);
  if (row.thrown) throw new SparehandError(row.thrown, line ?? end.kind, row.hint ? { hint: row.hint(end) } : {});
  if (line !== undefined) say(ctx, line);
  return endStatus(end);
}
