// Runs the remote command through ssh: output streamed live, signals passed on, the exit status returned.
import { spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { exitStatus } from '../process.js';

export interface ExecOptions {
  /** ssh's argv (sshArgs()). */
  args: string[];
  env: NodeJS.ProcessEnv;
  tty: boolean;
  timeoutMs?: number | undefined;
}

export interface ExecResult {
  status: number;
  /** Set when sparehand stopped the command (a signal it received, or the timeout). */
  stoppedBy?: NodeJS.Signals | 'timeout';
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
/** After asking the remote group to stop, how long before closing the line (the wrapper then KILLs). */
const GRACE_MS = 5000;

/**
 * Without a terminal, ssh runs in its own process group (a Ctrl-C reaches sparehand, not ssh) and its stdin is
 * a line to the remote wrapper: a signal's name stops the command's whole group there; end of input (also when
 * sparehand dies) does too. With a terminal, ssh owns it and a Ctrl-C travels through the remote terminal.
 */
export function execRemote(ctx: Context, opts: ExecOptions): Promise<ExecResult> {
  const direct = ctx.stdout === process.stdout && ctx.stderr === process.stderr;
  const child = spawn('ssh', opts.args, {
    env: opts.env,
    detached: !opts.tty,
    stdio: opts.tty ? 'inherit' : ['pipe', direct ? 'inherit' : 'pipe', direct ? 'inherit' : 'pipe'],
  });
  if (!direct && !opts.tty) {
    child.stdout?.pipe(ctx.stdout, { end: false });
    child.stderr?.pipe(ctx.stderr, { end: false });
  }
  child.stdin?.on('error', () => undefined);
  let stoppedBy: ExecResult['stoppedBy'];
  let closing: NodeJS.Timeout | undefined;
  const stop = (sig: NodeJS.Signals) => {
    if (opts.tty) {
      child.kill(sig);
      return;
    }
    if (child.stdin?.writable) child.stdin.write(`${sig.slice(3)}\n`);
    closing ??= setTimeout(() => child.stdin?.end(), GRACE_MS);
  };
  const handlers = SIGNALS.map((sig) => {
    const h = () => {
      if (stoppedBy !== undefined && sig === 'SIGINT') child.stdin?.end(); // a second Ctrl-C: stop now
      stoppedBy ??= sig;
      stop(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          stoppedBy ??= 'timeout';
          stop('SIGTERM');
        }, opts.timeoutMs);
  return new Promise<ExecResult>((resolve, reject) => {
    child.once('error', (e) => reject(new SparehandError('SSH', `cannot start ssh: ${e.message}`, { cause: e })));
    child.once('close', (code, signal) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      clearTimeout(timer);
      clearTimeout(closing);
      let status = exitStatus(code, signal);
      if (stoppedBy === 'timeout') status = 124;
      else if (stoppedBy !== undefined && (status === 255 || status === 0)) status = exitStatus(null, stoppedBy);
      resolve(stoppedBy === undefined ? { status } : { status, stoppedBy });
    });
  });
}
