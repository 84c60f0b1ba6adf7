// `sparehand run` on a worker, step by step: claim a slot → send the project → run the command there (its changes
// come back in the same session) → apply them here → report. Or run here, with --or-local, when no worker can.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { quote } from 'shell-quote';
import { programsOf } from '../classify/programs.js';
import type { Config } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { exitStatus } from '../process.js';
import { gitRoot } from '../project-root.js';
import { connectionFor, sshEnv } from '../remote/connection.js';
import { type ExecResult, execRemote } from '../remote/exec.js';
import { remoteCommand } from '../remote/remote-script.js';
import type { Change } from '../remote/results.js';
import type { SlotLock } from '../remote/slots.js';
import { sshArgs } from '../remote/ssh-args.js';
import { notBroughtBack, skipArgument, skipRules } from '../remote/sync-rules.js';
import { type SyncTarget, syncUp } from '../remote/sync.js';
import { TREE_WATCH } from '../remote/tree-watch.js';
import { findWorker } from '../remote/workers.js';
import { which } from '../which.js';
import { type Applied, applyChanges } from '../sync-back/apply.js';
import { foldsCase, makeConflictsFolder, makeStaging, removeStaging } from '../sync-back/own-folder.js';
import { claimSlot } from './claim.js';
import { depsPlan } from './deps.js';
import { forwardedEnv } from './env.js';
import { runHere } from './local.js';
import { relativeCwd, remoteRoot } from './project.js';
import { conflictLines, summaryLines } from './report.js';
import { whyNotSendable } from './sendable.js';
import { RunSignals } from './signals.js';

export interface RemoteRunOptions {
  orLocal?: boolean | undefined;
  worker?: string | undefined;
  timeoutMs?: number | undefined;
  syncBack?: boolean | undefined;
  quiet?: boolean | undefined;
}

/** A progress line that rewrites itself, only when stderr is a terminal. */
function progress(ctx: Context, text: string | undefined): void {
  if (!ctx.stderrIsTTY) return;
  ctx.stderr.write(text === undefined ? '\r\x1b[K' : `\r\x1b[Ksparehand: ${text}`);
}

/** Runs `command` on a worker (or here, with --or-local, when none can take it). Returns the exit status. */
export async function runOnWorker(ctx: Context, config: Config, command: string, opts: RemoteRunOptions): Promise<number> {
  const local = (why: string) => runHere(ctx, command, why, opts.timeoutMs);
  const cannot = (why: string, hint: string): Promise<number> => {
    if (opts.orLocal) return local(why);
    throw new SparehandError('WORKER', why, { hint: `${hint}; or run with --or-local to run here when no worker can` });
  };
  const git = gitRoot(ctx.cwd);
  const root = git ?? ctx.cwd;
  const refusal = whyNotSendable(root, { home: ctx.home, git: git !== undefined, config });
  if (refusal) return cannot(`refusing to send ${root} to a worker: ${refusal}`, 'run it inside a project (a git repository), or with --local');
  const name = opts.worker ?? ctx.env.SPAREHAND_WORKER;
  let candidates = config.workers ?? [];
  if (name) {
    try {
      candidates = [findWorker(config, name)];
    } catch (e) {
      if (!isSparehandError(e)) throw e;
      const from = opts.worker ? '--worker' : 'SPAREHAND_WORKER';
      return cannot(`${e.message} (${from})`, e.hint ?? 'check the name');
    }
  }
  const signals = new RunSignals();
  try {
    const claim = await claimSlot(ctx, candidates, Boolean(opts.orLocal), signals);
    if (signals.received) return exitStatus(null, signals.received);
    if (!claim.lock) {
      if (claim.busy) return local('all worker slots are busy');
      const first = claim.failures[0];
      return cannot(first?.message ?? 'no worker reachable', first?.hint ?? 'check `sparehand worker check`');
    }
    try {
      return await runInSlot(ctx, config, command, opts, { lock: claim.lock, root, signals });
    } finally {
      claim.lock.release();
    }
  } finally {
    signals.dispose();
  }
}

interface Slot {
  lock: SlotLock;
  /** The project root here. */
  root: string;
  signals: RunSignals;
}

async function runInSlot(ctx: Context, config: Config, command: string, opts: RemoteRunOptions, slot: Slot): Promise<number> {
  const { worker } = slot.lock;
  const { root, signals } = slot;
  const t: SyncTarget = { worker, conn: connectionFor(ctx, worker), config, localRoot: root, remoteRoot: remoteRoot(worker, root, slot.lock.slot), env: sshEnv(ctx) };

  // Send.
  const t0 = performance.now();
  progress(ctx, `syncing to ${worker.name}…`);
  try {
    await syncUp(t, signals.abortSignal());
  } catch (e) {
    if (opts.orLocal && isSparehandError(e) && !signals.received) return runHere(ctx, command, e.message, opts.timeoutMs);
    throw e;
  } finally {
    progress(ctx, undefined);
    signals.react(undefined);
  }
  if (signals.received) return exitStatus(null, signals.received);
  const upMs = performance.now() - t0;

  // Run there; what the command changed comes back at the end of the same session.
  const nonce = randomBytes(12).toString('hex');
  const startedAt = new Date();
  let stagingDir: string | undefined;
  const staging = () => (stagingDir ??= makeStaging(root, nonce));
  try {
    const t1 = performance.now();
    const result = await runThere(ctx, config, command, opts, t, { nonce, root, slot: slot.lock.slot, signals, staging });
    const execEnd = performance.now();
    const runEnd = result.seenAt ?? execEnd;
    if (result.stoppedBy === 'timeout') {
      say(ctx, 'stopped: the command ran longer than --timeout; nothing was brought back');
      return 124;
    }
    if (result.stoppedBy !== undefined) return exitStatus(null, result.stoppedBy);
    if (result.results === undefined) {
      say(ctx, result.seen
        ? `the connection to ${worker.name} was lost while the command's files came back; nothing was brought back`
        : `the connection to ${worker.name} was lost while the command ran; its fate is unknown and nothing was brought back`);
      return 255;
    }
    if (result.results.kind === 'refused') {
      if (opts.orLocal) return runHere(ctx, command, `${worker.name}: ${result.results.reason}`, opts.timeoutMs);
      throw new SparehandError('WORKER', `${worker.name}: ${result.results.reason}`, { hint: 'or run with --or-local to run here when the worker cannot' });
    }

    // Bring back, and report.
    const t2 = performance.now();
    const back = opts.syncBack === false ? undefined : bringBack(root, result.results.changes, { nonce, startedAt, staging });
    for (const line of conflictLines(back?.conflicts ?? [])) say(ctx, line);
    if (!opts.quiet) {
      const syncMs = upMs + (execEnd - runEnd) + (performance.now() - t2);
      const depsMs = (result.results.depsSeconds ?? 0) * 1000;
      const times = { syncMs, runMs: Math.max(0, runEnd - t1 - depsMs), ...(result.results.depsSeconds === undefined ? {} : { depsMs }) };
      for (const line of summaryLines(worker.name, times, back)) say(ctx, line);
    }
    // A signal that came while the files were applied: they all are; the run ends as the signal asks.
    if (signals.received) return exitStatus(null, signals.received);
    return result.results.status;
  } finally {
    if (stagingDir !== undefined) removeStaging(root, nonce);
  }
}

/** Runs the command on the worker under the tree watch (remote-script.ts) and reads what comes back. */
async function runThere(
  ctx: Context,
  config: Config,
  command: string,
  opts: RemoteRunOptions,
  t: SyncTarget,
  run: { nonce: string; root: string; slot: number; signals: RunSignals; staging: () => string },
): Promise<ExecResult> {
  const deps = config.sync?.copyDependencies ? [] : depsPlan(run.root, ctx.cwd);
  const tty = ctx.stdinIsTTY && Boolean((ctx.stdout as { isTTY?: boolean }).isTTY);
  const tree = `../${run.slot}.tree`;
  const remote = remoteCommand({
    tty,
    root: t.remoteRoot,
    rel: relativeCwd(run.root, ctx.cwd),
    command,
    nonce: run.nonce,
    tree,
    skip: skipArgument(skipRules(notBroughtBack(config))),
    watch: opts.syncBack === false ? '' : TREE_WATCH,
    deps,
    stamps: `../${run.slot}.deps`,
    loginEnv: '../../.login-env',
    venv: activeVenv(ctx, run.root),
    programs: programsFoundHere(ctx, command),
    env: forwardedEnv(ctx.env, config),
  });
  const resultsFile = `${t.remoteRoot}/${tree}.results`;
  return execRemote(ctx, {
    args: sshArgs(t.worker, t.conn, remote, { tty }),
    env: t.env,
    tty,
    timeoutMs: opts.timeoutMs,
    nonce: run.nonce,
    stagingDir: run.staging,
    resultsArgs: sshArgs(t.worker, t.conn, quote(['sh', '-c', 'cat -- "$1" 2>/dev/null; rm -f -- "$1"', 'sh', resultsFile])),
    signals: run.signals,
  });
}

/** The project's .venv that the caller's shell has active (VIRTUAL_ENV inside the project), relative to it; else ''. */
function activeVenv(ctx: Context, root: string): string {
  const venv = ctx.env.VIRTUAL_ENV;
  if (!venv) return '';
  const rel = relative(root, resolve(ctx.cwd, venv));
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? '' : rel.split(sep).join('/');
}

/** The programs the command starts that exist here: the worker must have them too (else it runs here). */
function programsFoundHere(ctx: Context, command: string): string[] {
  return programsOf(command).filter((p) => (p.includes('/') ? existsSync(resolve(ctx.cwd, p)) : which(p, ctx.env.PATH) !== undefined));
}

/** Applies the command's changes here (lib/sync-back/apply.ts). */
function bringBack(root: string, changes: readonly Change[], run: { nonce: string; startedAt: Date; staging: () => string }): Applied {
  let conflicts: string | undefined;
  let folds: boolean | undefined;
  return applyChanges(changes, {
    root,
    conflictsDir: () => (conflicts ??= makeConflictsFolder(root, run.startedAt, run.nonce)),
    scratch: run.staging,
    foldsCase: () => (folds ??= foldsCase(run.staging())),
  });
}
