// Runs the remote command through ssh: output streamed live, signals passed on, the results block read.
import { spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { exitStatus } from '../process.js';
import { type Results, ResultsParser, pumpResults } from './results.js';

/** How the run tells this stage about a signal sparehand received (`again`: not the first one). */
export interface SignalSource {
  react(reaction: ((sig: NodeJS.Signals, again: boolean) => void) | undefined): void;
}

export interface ExecOptions {
  /** ssh's argv (sshArgs()). */
  args: string[];
  env: NodeJS.ProcessEnv;
  tty: boolean;
  timeoutMs?: number | undefined;
  /** Names the results block (remote-script.ts). */
  nonce: string;
  /** Makes the folder that receives the files coming back. */
  stagingDir: () => string;
  /** Terminal mode: ssh's argv that prints the results file the wrapper wrote (and removes it). */
  resultsArgs: string[];
  signals: SignalSource;
}

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

/** After asking the remote group to stop, how long before closing the line (the wrapper then KILLs). */
const GRACE_MS = 5000;
/** After the results block, how long ssh may take to end before it is stopped (a process the command left behind). */
const AFTER_RESULTS_MS = 1500;

/**
 * Without a terminal, ssh runs in its own process group (a Ctrl-C reaches sparehand, not ssh) and its stdin is
 * a line to the remote wrapper: a signal's name stops the command's whole group there; end of input (also when
 * sparehand dies) does too. With a terminal, ssh owns it and a Ctrl-C travels through the remote terminal.
 */
export async function execRemote(ctx: Context, opts: ExecOptions): Promise<ExecResult> {
  const direct = ctx.stderr === process.stderr;
  const child = spawn('ssh', opts.args, {
    env: opts.env,
    detached: !opts.tty,
    stdio: opts.tty ? 'inherit' : ['pipe', 'pipe', direct ? 'inherit' : 'pipe'],
  });
  if (!direct && !opts.tty) child.stderr?.pipe(ctx.stderr, { end: false });
  child.stdin?.on('error', () => undefined);
  const parser = new ResultsParser(opts.nonce, opts.stagingDir);
  let stoppedBy: ExecResult['stoppedBy'];
  let closing: NodeJS.Timeout | undefined;
  /** Ends the ssh session at once (the worker's side then stops: its output has nowhere to go). */
  const hangUp = () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    try {
      if (opts.tty) child.kill('SIGTERM');
      else process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  const stop = (sig: NodeJS.Signals) => {
    // Once the command has finished, nothing of a stopped run is wanted: end the session.
    if (parser.seen) return hangUp();
    if (opts.tty) {
      child.kill(sig);
      return;
    }
    if (child.stdin?.writable) child.stdin.write(`${sig.slice(3)}\n`);
    closing ??= setTimeout(() => child.stdin?.end(), GRACE_MS);
  };
  opts.signals.react((sig, again) => {
    if (again && sig === 'SIGINT') child.stdin?.end(); // a second Ctrl-C: stop now
    stoppedBy ??= sig;
    stop(sig);
  });
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          stoppedBy ??= 'timeout';
          stop('SIGTERM');
        }, opts.timeoutMs);
  const ended = new Promise<number>((resolve, reject) => {
    child.once('error', (e) => reject(new SparehandError('SSH', `cannot start ssh: ${e.message}`, { cause: e })));
    child.once('close', (code, signal) => resolve(exitStatus(code, signal)));
  });
  const stopped = () => (stoppedBy ? { stoppedBy } : {});
  try {
    if (opts.tty) {
      const sshStatus = await ended;
      if (stoppedBy !== undefined) return { sshStatus, seen: false, ...stopped() };
      return { sshStatus, ...(await fetchResults(opts)), ...stopped() };
    }
    await pumpResults(child.stdout as NonNullable<typeof child.stdout>, parser, ctx.stdout, () => stoppedBy !== undefined && parser.seen);
    if (stoppedBy !== undefined) hangUp();
    // A process the command left behind may keep the session open: it is not waited for.
    const late = setTimeout(hangUp, AFTER_RESULTS_MS);
    const sshStatus = await ended;
    clearTimeout(late);
    const { results, seenAt } = parser;
    return { sshStatus, seen: parser.seen, ...(results ? { results } : {}), ...(seenAt ? { seenAt } : {}), ...stopped() };
  } finally {
    opts.signals.react(undefined);
    clearTimeout(timer);
    clearTimeout(closing);
  }
}

/** Terminal mode: the wrapper wrote the results block to a file on the worker; one more round trip reads it. */
async function fetchResults(opts: ExecOptions): Promise<{ results?: Results; seen: boolean }> {
  const child = spawn('ssh', opts.resultsArgs, { env: opts.env, stdio: ['ignore', 'pipe', 'ignore'] });
  const closed = new Promise((resolve) => {
    child.once('close', resolve);
    child.once('error', resolve);
  });
  const parser = new ResultsParser(opts.nonce, opts.stagingDir);
  await pumpResults(child.stdout, parser);
  await closed;
  const results = parser.results;
  return { seen: parser.seen, ...(results ? { results } : {}) };
}
