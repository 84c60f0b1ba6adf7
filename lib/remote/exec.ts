// The ssh session a run lives in: it claims a slot on the worker, waits while the project is sent, runs the
// command (output streamed live, signals passed on) and reads the results block. With a terminal, the command
// runs in a second session (ssh -tt) while the first holds the slot.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { exitStatus } from '../process.js';
import { type Results, ResultsParser, pumpResults } from './results.js';

/** How the run tells a stage about a signal sparehand received (`again`: not the first one). */
export interface SignalSource {
  react(reaction: ((sig: NodeJS.Signals, again: boolean) => void) | undefined): void;
}

/** What the worker said when asked for a slot. */
export type Claimed = { slot: number } | { busy: true; slots: number } | { refused: string } | { lost: true };

export interface ExecResult {
  /** ssh's own exit status. */
  sshStatus: number;
  /** The whole results block; absent when it never came whole (the connection was lost, or the worker died). */
  results?: Results;
  /** The results block had begun: the command had finished. */
  seen: boolean;
  /** When the results block began (performance.now()): the command's end, as seen here. */
  seenAt?: number;
  /** Set when sparehand stopped the command (a signal it received, or the timeout). */
  stoppedBy?: NodeJS.Signals | 'timeout';
}

/** ssh's exit status (128+N for a signal), once it has ended and its output is read. */
function sshEnded(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.once('error', (e) => reject(new SparehandError('SSH', `cannot start ssh: ${e.message}`, { cause: e })));
    child.once('close', (code, signal) => resolve(exitStatus(code, signal)));
  });
}

/** What the session's results block said, as far as it came. */
function resultOf(parser: ResultsParser, sshStatus: number): ExecResult {
  const { results, seenAt } = parser;
  return { sshStatus, seen: parser.seen, ...(results ? { results } : {}), ...(seenAt ? { seenAt } : {}) };
}

/** After asking the remote group to stop, how long before closing the line (the wrapper then KILLs). */
const GRACE_MS = 5000;
/** After the results block, how long ssh may take to end before it is stopped (a process the command left behind). */
const AFTER_RESULTS_MS = 1500;

export interface Session {
  claimed: Promise<Claimed>;
  /** The project is on the worker: run the command there (pipe mode). */
  run(opts: { timeoutMs?: number | undefined; signals: SignalSource }): Promise<ExecResult>;
  /** Ends the session; the worker lets the slot go. */
  close(): void;
  /** The session's end (its ssh exit status). */
  ended: Promise<number>;
}

/**
 * Starts the session (remote-script.ts in mode pipe or hold). ssh runs in its own process group (a Ctrl-C
 * reaches sparehand, not ssh) and its stdin is a line to the remote wrapper: "go" once the project is there,
 * then a signal's name stops the command's whole group; end of input (also when sparehand dies) ends it all.
 */
export function openSession(ctx: Context, opts: { args: string[]; env: NodeJS.ProcessEnv; nonce: string; stagingDir: () => string }): Session {
  const direct = ctx.stderr === process.stderr;
  const child = spawn('ssh', opts.args, { env: opts.env, detached: true, stdio: ['pipe', 'pipe', direct ? 'inherit' : 'pipe'] });
  if (!direct) child.stderr?.pipe(ctx.stderr, { end: false });
  child.stdin?.on('error', () => undefined);
  const ended = sshEnded(child);
  ended.catch(() => undefined);
  const parser = new ResultsParser(opts.nonce, opts.stagingDir);
  const claim = new ClaimReader(opts.nonce);
  let stoppedBy: ExecResult['stoppedBy'];
  let resolveClaimed: (c: Claimed) => void = () => undefined;
  const claimed = new Promise<Claimed>((r) => (resolveClaimed = r));
  // One pump for the whole session: the claim line first (what precedes it is not the command's: stderr), then
  // the command's output and the results block.
  const pumped = pumpResults(child.stdout as NonNullable<typeof child.stdout>, {
    push: (chunk) => {
      if (claim.answer === undefined) {
        const { before, rest } = claim.push(chunk);
        if (before.length) ctx.stderr.write(before);
        if (claim.answer === undefined) return Buffer.alloc(0);
        resolveClaimed(claim.answer);
        return rest.length ? parser.push(rest) : rest;
      }
      return parser.push(chunk);
    },
    close: () => parser.close(),
    get done() {
      return parser.done;
    },
  }, ctx.stdout, () => stoppedBy !== undefined && parser.seen);
  void pumped.finally(() => resolveClaimed({ lost: true }));
  const hangUp = () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  return {
    claimed,
    ended,
    close: () => {
      child.stdin?.end();
      setTimeout(hangUp, AFTER_RESULTS_MS).unref();
    },
    run: async ({ timeoutMs, signals }) => {
      child.stdin?.write('go\n');
      let closing: NodeJS.Timeout | undefined;
      const stop = (sig: NodeJS.Signals) => {
        // Once the command has finished, nothing of a stopped run is wanted: end the session.
        if (parser.seen) return hangUp();
        if (child.stdin?.writable) child.stdin.write(`${sig.slice(3)}\n`);
        closing ??= setTimeout(() => child.stdin?.end(), GRACE_MS);
      };
      signals.react((sig, again) => {
        if (again && sig === 'SIGINT') child.stdin?.end(); // a second Ctrl-C: stop now
        stoppedBy ??= sig;
        stop(sig);
      });
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              stoppedBy ??= 'timeout';
              stop('SIGTERM');
            }, timeoutMs);
      try {
        await pumped;
        if (stoppedBy !== undefined) hangUp();
        // A process the command left behind may keep the session open: it is not waited for.
        const late = setTimeout(hangUp, AFTER_RESULTS_MS);
        const sshStatus = await ended;
        clearTimeout(late);
        return { ...resultOf(parser, sshStatus), ...(stoppedBy ? { stoppedBy } : {}) };
      } finally {
        signals.react(undefined);
        clearTimeout(timer);
        clearTimeout(closing);
      }
    },
  };
}

/** Finds the claim line, `\0sparehand-claim NONCE (N | busy MAX | refused WHY)`, in what the session prints first. */
class ClaimReader {
  answer: Claimed | undefined;
  private buffered = Buffer.alloc(0);
  private readonly marker: Buffer;

  constructor(nonce: string) {
    this.marker = Buffer.from(`\0sparehand-claim ${nonce} `);
  }

  push(chunk: Buffer): { before: Buffer; rest: Buffer } {
    const data = Buffer.concat([this.buffered, chunk]);
    const at = data.indexOf(this.marker);
    const nl = at < 0 ? -1 : data.indexOf(10, at);
    if (nl < 0) {
      // Keep what could still hold the marker; what cannot is passed on.
      const keep = at >= 0 ? at : Math.max(0, data.length - this.marker.length);
      this.buffered = data.subarray(keep);
      return { before: data.subarray(0, keep), rest: Buffer.alloc(0) };
    }
    const line = data.subarray(at + this.marker.length, nl).toString();
    const [first, ...more] = line.split(' ');
    if (/^\d+$/.test(first ?? '')) this.answer = { slot: Number(first) };
    else if (first === 'busy') this.answer = { busy: true, slots: Number(more[0]) || 0 };
    else this.answer = { refused: more.join(' ') || 'the worker refused the run' };
    return { before: data.subarray(0, at), rest: data.subarray(nl + 1) };
  }
}

/**
 * Terminal mode: the command runs in `ssh -tt` (ssh owns the terminal; a Ctrl-C travels through it), while a
 * session in mode hold keeps the slot. The wrapper writes the results block to a file; one more round trip
 * reads it.
 */
export async function execTerminal(
  opts: { args: string[]; resultsArgs: string[]; env: NodeJS.ProcessEnv; nonce: string; stagingDir: () => string; timeoutMs?: number | undefined; signals: SignalSource },
): Promise<ExecResult> {
  const child: ChildProcess = spawn('ssh', opts.args, { env: opts.env, stdio: 'inherit' });
  let stoppedBy: ExecResult['stoppedBy'];
  const stop = (sig: NodeJS.Signals) => child.kill(sig);
  opts.signals.react((sig) => {
    stoppedBy ??= sig;
    stop(sig);
  });
  const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => ((stoppedBy ??= 'timeout'), stop('SIGTERM')), opts.timeoutMs);
  try {
    const sshStatus = await sshEnded(child);
    if (stoppedBy !== undefined) return { sshStatus, seen: false, stoppedBy };
    const reader = spawn('ssh', opts.resultsArgs, { env: opts.env, stdio: ['ignore', 'pipe', 'ignore'] });
    const closed = new Promise((resolve) => {
      reader.once('close', resolve);
      reader.once('error', resolve);
    });
    const parser = new ResultsParser(opts.nonce, opts.stagingDir);
    await pumpResults(reader.stdout, parser);
    await closed;
    return resultOf(parser, sshStatus);
  } finally {
    opts.signals.react(undefined);
    clearTimeout(timer);
  }
}
