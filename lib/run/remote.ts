// `sparehand run` on a worker, step by step: claim a slot → send the project → run the command there (its changes
// come back in the same session) → apply them here → report. Or run here, with --or-local, when no worker can.
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { quote } from 'shell-quote';
import { programsOf } from '../classify/programs.js';
import type { Config, Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { exitStatus } from '../process.js';
import { gitRoot } from '../project-root.js';
import { connectionFor, sshEnv } from '../remote/connection.js';
import { execTerminal, openSession } from '../remote/exec.js';
import { type RemoteJob, remoteCommand } from '../remote/remote-script.js';
import { rememberWorkerRsync, rsyncHere, rsyncThere } from '../remote/rsync-found.js';
import type { Change } from '../remote/results.js';
import { remotePath, sshArgs } from '../remote/ssh-args.js';
import { notBroughtBack, skipArgument, skipRules } from '../remote/sync-rules.js';
import { type SyncTarget, syncUp } from '../remote/sync.js';
import { TREE_WATCH } from '../remote/tree-watch.js';
import { findWorker, workerDir, workerSlots } from '../remote/workers.js';
import { runRecord } from '../remote/worker-slots.js';
import { which } from '../which.js';
import { networkCutHere, sandboxRefused } from '../sandbox/run-checks.js';
import { type Applied, applyChanges } from '../sync-back/apply.js';
import { foldsCase, makeConflictsFolder, makeStaging, removeStaging } from '../sync-back/own-folder.js';
import { type Attempt, claimSlot } from './claim.js';
import { takeFolder } from './folders.js';
import { type DepsInstall, depsPlan } from './deps.js';
import { forwardedEnv } from './env.js';
import { runHere } from './local.js';
import { projectKey, relativeCwd, remoteRoot } from './project.js';
import { recordRun } from './runs-here.js';
import { conflictLines, summaryLines } from './report.js';
import { whyNotSendable } from './sendable.js';
import { toolchainNote } from './toolchain-note.js';
import type { RunOutcome } from './run-log.js';
import { RunSignals } from './signals.js';

export interface RemoteRunOptions {
  orLocal?: boolean | undefined;
  worker?: string | undefined;
  timeoutMs?: number | undefined;
  syncBack?: boolean | undefined;
  quiet?: boolean | undefined;
  /** Filled in as the run goes, for the log. */
  outcome?: RunOutcome;
}

/** A progress line that rewrites itself, only when stderr is a terminal. */
function progress(ctx: Context, text: string | undefined): void {
  if (!ctx.stderrIsTTY) return;
  ctx.stderr.write(text === undefined ? '\r\x1b[K' : `\r\x1b[Ksparehand: ${text}`);
}

/** Runs `command` on a worker (or here, with --or-local, when none can take it). Returns the exit status. */
export async function runOnWorker(ctx: Context, config: Config, command: string, opts: RemoteRunOptions): Promise<number> {
  const local = (why: string) => runHere(ctx, command, why, opts.timeoutMs, opts.outcome);
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
  // A coding tool's sandbox with no network at all: nothing to try (lib/sandbox/run-checks.ts).
  const cut = await networkCutHere(ctx, config);
  if (cut !== undefined) return cannot(cut, 'widen the sandbox as it says');
  const signals = new RunSignals();
  try {
    const run = prepare(ctx, config, command, opts, root);
    const claim = await claimSlot(ctx, candidates, { orLocal: Boolean(opts.orLocal), signals, open: (w, waited) => attempt(ctx, w, run, !waited) });
    if ('stopped' in claim) return exitStatus(null, signals.received ?? 'SIGTERM');
    if ('busy' in claim) return local('all worker slots are busy');
    if ('refused' in claim) return cannot(`${claim.worker.name}: ${claim.refused}`, 'install it there');
    if ('failures' in claim) {
      const first = claim.failures[0];
      const sandboxed = await sandboxRefused(ctx, config, claim.failures);
      return cannot(sandboxed ?? first?.message ?? 'no worker reachable', first?.hint ?? 'check `sparehand worker check`');
    }
    const forget = recordRun(ctx, claim.worker);
    if (opts.outcome) opts.outcome.where = claim.worker.name;
    try {
      return await runInSlot(ctx, opts, run, { worker: claim.worker, attempt: claim.attempt, signals });
    } finally {
      claim.attempt.abandon();
      forget();
    }
  } finally {
    signals.dispose();
  }
}

type Sent = { ms: number } | { error: unknown };

/**
 * Sends the project with the rsync each side has: how long it took, or what failed (after a failure the next run
 * looks at the worker's rsync again).
 */
async function send(ctx: Context, t: SyncTarget, signal: AbortSignal): Promise<Sent> {
  const t0 = performance.now();
  try {
    const rsyncs = { here: await rsyncHere(ctx), there: await rsyncThere(ctx, t.worker, t.conn) };
    await syncUp(t, rsyncs, signal).catch(async (e: unknown) => {
      await rememberWorkerRsync(ctx, t.worker, undefined);
      throw e;
    });
    return { ms: performance.now() - t0 };
  } catch (error) {
    return { error };
  }
}

/** A try at one worker: one of the project's copies there, the session that claims a slot, and the project sent. */
interface RunAttempt extends Attempt {
  folder: number;
  target: SyncTarget;
  /** The sync started beside the claim (undefined: send once the slot is had). */
  synced?: Promise<Sent>;
}

/**
 * Starts the session that claims a slot on `worker` and, with `sendNow`, sends the project to the run's copy
 * there at the same time: the claim costs no round trip of its own.
 */
function attempt(ctx: Context, worker: Worker, run: Prepared, sendNow: boolean): RunAttempt {
  const folder = takeFolder(ctx, worker, run.key, run.root);
  const session = openSession(ctx, sessionArgs(ctx, worker, run, { mode: run.tty ? 'hold' : 'pipe', folder: folder.index }));
  const target: SyncTarget = { worker, conn: connectionFor(ctx, worker), config: run.config, localRoot: run.root, remoteRoot: remoteRoot(worker, run.root, folder.index), env: sshEnv(ctx) };
  const stop = new AbortController();
  const synced = sendNow ? send(ctx, target, stop.signal) : undefined;
  let done = false;
  return {
    folder: folder.index,
    target,
    session,
    ...(synced ? { synced } : {}),
    abandon: () => {
      if (done) return;
      done = true;
      stop.abort();
      session.close();
      void (synced ?? Promise.resolve()).finally(folder.release);
    },
  };
}

/** What one run sends, decided once before any worker is asked. */
interface Prepared {
  config: Config;
  command: string;
  root: string;
  /** The project's folder on a worker (project.ts projectKey). */
  key: string;
  nonce: string;
  tty: boolean;
  watch: boolean;
  programs: string[];
  deps: DepsInstall[];
  startedAt: Date;
  staging: () => string;
  /** Whether staging was made (and must be removed). */
  staged: () => boolean;
}

function prepare(ctx: Context, config: Config, command: string, opts: RemoteRunOptions, root: string): Prepared {
  const nonce = randomBytes(12).toString('hex');
  let dir: string | undefined;
  return {
    config,
    command,
    root,
    key: projectKey(root),
    nonce,
    tty: ctx.stdinIsTTY && Boolean((ctx.stdout as { isTTY?: boolean }).isTTY),
    watch: opts.syncBack !== false,
    programs: programsFoundHere(ctx, command),
    deps: config.sync?.copyDependencies ? [] : depsPlan(root, ctx.cwd),
    startedAt: new Date(),
    staging: () => (dir ??= makeStaging(root, nonce)),
    staged: () => dir !== undefined,
  };
}

/** ssh's argv and what a session needs, for the wrapper in `how.mode` (remote-script.ts). */
function sessionArgs(ctx: Context, worker: Worker, run: Prepared, how: { mode: RemoteJob['mode']; folder: number }) {
  const remote = remoteCommand({
    mode: how.mode,
    dir: remotePath(workerDir(worker)),
    key: run.key,
    slots: workerSlots(worker),
    folder: how.folder,
    record: runRecord({ machine: hostname(), user: `${userInfo().username}@${hostname()}`, project: run.root, command: run.command }),
    rel: relativeCwd(run.root, ctx.cwd),
    command: run.command,
    nonce: run.nonce,
    skip: skipArgument(skipRules(notBroughtBack(run.config))),
    watch: run.watch ? TREE_WATCH : '',
    deps: run.deps,
    venv: activeVenv(ctx, run.root),
    programs: run.programs,
    env: forwardedEnv(ctx.env, run.config),
  });
  return { args: sshArgs(worker, connectionFor(ctx, worker), remote, { tty: how.mode === 'tty' }), env: sshEnv(ctx), nonce: run.nonce, stagingDir: run.staging };
}

interface Claimed {
  worker: Worker;
  attempt: RunAttempt;
  signals: RunSignals;
}

async function runInSlot(ctx: Context, opts: RemoteRunOptions, run: Prepared, claimed: Claimed): Promise<number> {
  const { worker, attempt: at, signals } = claimed;
  const { session, target: t, folder } = at;
  const { root, command } = run;

  // Send (already under way beside the claim, unless the run waited for its slot).
  progress(ctx, `syncing to ${worker.name}…`);
  signals.react(() => at.abandon());
  const sent = await (at.synced ?? send(ctx, t, signals.abortSignal()));
  progress(ctx, undefined);
  signals.react(undefined);
  if (signals.received) return exitStatus(null, signals.received);
  if ('error' in sent) {
    if (opts.orLocal && isSparehandError(sent.error)) {
      at.abandon();
      return runHere(ctx, command, sent.error.message, opts.timeoutMs, opts.outcome);
    }
    throw sent.error;
  }
  const upMs = sent.ms;

  // Run there; what the command changed comes back at the end of the same session.
  const note = toolchainNote(ctx, worker, run.programs);
  try {
    const t1 = performance.now();
    const result = run.tty
      ? await execTerminal({
          ...sessionArgs(ctx, worker, run, { mode: 'tty', folder }),
          resultsArgs: sshArgs(worker, t.conn, quote(['sh', '-c', 'cat -- "$1" 2>/dev/null; rm -f -- "$1"', 'sh', `${t.remoteRoot}/../${folder}.tree.results`])),
          timeoutMs: opts.timeoutMs,
          signals,
        })
      : await session.run({ timeoutMs: opts.timeoutMs, signals });
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
      if (opts.orLocal) return runHere(ctx, command, `${worker.name}: ${result.results.reason}`, opts.timeoutMs, opts.outcome);
      throw new SparehandError('WORKER', `${worker.name}: ${result.results.reason}`, { hint: 'or run with --or-local to run here when the worker cannot' });
    }

    // Bring back, and report.
    const t2 = performance.now();
    const back = opts.syncBack === false ? undefined : bringBack(root, result.results.changes, run);
    for (const line of conflictLines(back?.conflicts ?? [])) say(ctx, line);
    const syncMs = upMs + (execEnd - runEnd) + (performance.now() - t2);
    const depsMs = (result.results.depsSeconds ?? 0) * 1000;
    const times = { syncMs, runMs: Math.max(0, runEnd - t1 - depsMs), ...(result.results.depsSeconds === undefined ? {} : { depsMs }) };
    if (!opts.quiet) for (const line of summaryLines(worker.name, times, back)) say(ctx, line);
    if (opts.outcome) Object.assign(opts.outcome, { ...times, files: back?.files ?? 0, bytes: back?.bytes ?? 0, conflicts: back?.conflicts.length ?? 0 });
    for (const line of await note()) say(ctx, line);
    // A signal that came while the files were applied: they all are; the run ends as the signal asks.
    if (signals.received) return exitStatus(null, signals.received);
    return result.results.status;
  } finally {
    if (run.staged()) removeStaging(root, run.nonce);
  }
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
function bringBack(root: string, changes: readonly Change[], run: Pick<Prepared, 'nonce' | 'startedAt' | 'staging'>): Applied {
  let conflicts: string | undefined;
  let folds: boolean | undefined;
  return applyChanges(changes, {
    root,
    conflictsDir: () => (conflicts ??= makeConflictsFolder(root, run.startedAt, run.nonce)),
    scratch: run.staging,
    foldsCase: () => (folds ??= foldsCase(run.staging())),
  });
}
