// Runs the command on this machine exactly as the shell would: bash -c, same folder, stdio passed through.
import { closeSync, existsSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchFolder } from '../state/own-folder.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { exitStatus, start } from '../process.js';
import { outsideChosenSandbox } from '../sandbox/run-checks.js';
import type { RunOutcome } from './run-log.js';
import { msLeft } from './clock.js';
import { endLine, endRun, endStatus } from './endings.js';
import type { LocalTurn } from './local-slots.js';
import { waitForTurn } from './local-wait.js';
import { secs } from './report.js';
import type { RunSignals } from './signals.js';

const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** bash where there is one, else sh. */
export function localShell(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : existsSync('/usr/bin/bash') ? '/usr/bin/bash' : '/bin/sh';
}

/**
 * Runs `command` here; with `timeoutMs`, a command running longer gets SIGTERM (then SIGKILL) and 124, as timeout(1),
 * and a line that says so, naming `limit` (`--timeout 2m`). `prefix` starts it gently (gentle.ts: `nice -n 10 ionice -c3 -t`).
 */
export async function runLocal(
  ctx: Context,
  command: string,
  opts: { cwd?: string; timeoutMs?: number | undefined; limit?: string; prefix?: readonly string[] } = {},
): Promise<number> {
  const env = { ...ctx.env, SPAREHAND_RUN: '1' };
  const cwd = opts.cwd ?? ctx.cwd;
  // A command too long for one argument (the kernel's limit: 128 KiB) is read by bash from fd 3, closed before it runs.
  const long = Buffer.byteLength(command) >= 65536 ? longCommandFile(command, cwd) : undefined;
  const shell = [localShell(), ...(long ? ['-c', 'eval "$(cat <&3)" 3<&-'] : ['-c', command])];
  const [program, ...args] = [...(opts.prefix ?? []), ...shell] as [string, ...string[]];
  const child = start(program, args, {
    cwd,
    env,
    stdio: ['inherit', 'inherit', 'inherit', ...(long ? [long.fd] : [])],
  });
  if (long) long.close();
  // The child shares our terminal's process group, so a Ctrl-C reaches it directly; for signals sent to
  // sparehand alone (kill, a tool's timeout) we pass them on and keep running until the child exits.
  const handlers = FORWARDED.map((sig) => {
    const h = () => {
      if (child.exitCode === null) child.kill(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  const stop = { kind: 'ran-past-here', limit: opts.limit ?? 'its time limit' } as const;
  let timedOut = false;
  let kill: NodeJS.Timeout | undefined;
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          // Every stop has its line: the command's own output may end anywhere (`sleep 5` says nothing).
          say(ctx, endLine(stop));
          child.kill('SIGTERM');
          kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        }, opts.timeoutMs);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', (e) => reject(new SparehandError('IO', `cannot start ${localShell()}: ${e.message}`, { cause: e })));
      child.once('close', (code, signal) => resolve(endStatus(timedOut ? stop : { kind: 'ran', status: exitStatus(code, signal) })));
    });
  } finally {
    clearTimeout(timer);
    clearTimeout(kill);
    for (const [sig, h] of handlers) process.off(sig, h);
  }
}

/** The command in a file already deleted, open for reading (what bash reads it from). */
function longCommandFile(command: string, cwd: string): { fd: number; close: () => void } {
  const dir = scratchFolder(cwd, 'sparehand-cmd-');
  const file = join(dir, 'command');
  writeFileSync(file, command, { mode: 0o600 });
  const fd = openSync(file, 'r');
  rmSync(dir, { recursive: true, force: true });
  return { fd, close: () => closeSync(fd) };
}

/** How a run here goes: its bounds, its place in the local queue, how gently it starts. */
export interface HereOptions {
  /** When the whole run must have ended (clock.ts). */
  deadline: number | undefined;
  /** How long it may wait for a local slot, and that bound in words (`half of --timeout 2m`). */
  until?: number | undefined;
  limit?: string;
  /** `--timeout` as it was given (`2m`), for the line a stop at the deadline says. */
  timeout?: string;
  turn?: LocalTurn | undefined;
  signals?: RunSignals | undefined;
  prefix?: readonly string[];
  outcome?: RunOutcome | undefined;
}

/**
 * Runs here and says why, in the one `sparehand:` line a local run adds, after a local slot is held (local-wait.ts);
 * or, when sparehand was let out of the sandbox the user turned on for the tool running it, refuses (125) with the
 * line that lets the agent run it in the sandbox.
 */
export async function runHere(ctx: Context, command: string, why: string, o: HereOptions): Promise<number> {
  const { outcome } = o;
  const outside = outsideChosenSandbox(ctx, command);
  if (outside !== undefined) {
    const status = endRun(ctx, { kind: 'outside-sandbox', why, outside });
    if (outcome) Object.assign(outcome, { where: 'nowhere', why: outside });
    return status;
  }
  try {
    const waited = o.turn ? await waitForTurn(ctx, o.turn, { until: o.until, limit: o.limit ?? 'the time it had', signals: o.signals }) : { ms: 0 };
    if ('stopped' in waited) return endRun(ctx, { kind: 'signalled', signal: waited.stopped });
    if (waited.note) say(ctx, waited.note);
    say(ctx, `running locally: ${why}${waited.ms >= 100 && !waited.note ? `; waited ${secs(waited.ms)} for a slot` : ''}`);
    if (outcome) Object.assign(outcome, { where: 'here', why, ...(waited.ms > 0 ? { waitMs: waited.ms } : {}) });
    return await runLocal(ctx, command, { timeoutMs: msLeft(o.deadline), prefix: o.prefix ?? [], ...(o.timeout ? { limit: `--timeout ${o.timeout}` } : {}) });
  } finally {
    o.turn?.release();
  }
}
