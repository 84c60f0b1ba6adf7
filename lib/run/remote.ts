import { rmSync } from 'node:fs';
import type { Config, Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { isSparehandError } from '../errors.js';
import { gitRoot } from '../project-root.js';
import { sshEnv } from '../remote/connection.js';
import { execTerminal } from '../remote/session.js';
import { addForwards } from './forward.js';
import { remoteArgv } from '../remote/transport.js';
import { expandPools } from '../remote/pools.js';
import { filePuts } from '../send/warm-send.js';
import { notBroughtBack, underMatcher } from '../remote/sync-rules.js';
import { bootCommand } from '../remote/worker/program.js';
import { findWorker } from '../remote/workers.js';
import { rememberWorkerPlatform } from '../remote/worker-facts.js';
import { printable } from '../safe-text.js';
import { ownChanges, withOtherCopies } from '../sync/ancestor.js';
import { removeStaging } from '../state/own-folder.js';
import { networkCutHere, sandboxRefused } from '../sandbox/run-checks.js';
import { claimSlot } from './claim.js';
import { endLine, endRun, notStarted } from './endings.js';
import { type RunClock, runClock, shownTimeout } from './clock.js';
import { failedInstall, failedInstallLine, rememberFailure } from './failed-installs.js';
import { type HereOptions, runHere } from './local.js';
import { gentlePrefix } from './gentle.js';
import { recordRun } from './runs-here.js';
import { conflictLines, keptLines, summaryLines, timesOnWorker, yoursLine } from './report.js';
import { whyNotSendable } from './sendable.js';
import { relativeCwd } from './project.js';
import { toolchainNote } from './toolchain-note.js';
import { hasRunOf } from './run-log.js';
import { serviceSignsLine } from './service-signs.js';
import { RunSignals } from './signals.js';
import { refusedLine } from './refused-ports.js';
import { forwardedLine } from './services.js';
import { type Prepared, type RemoteRunOptions, prepare, venvUnmade } from './remote-prepare.js';
import { type RunAttempt, anySignal, attempt, endedWithin, send } from './remote-attempt.js';
import { bringBack, keepFingerprint } from './bring-back.js';
import { heldBackChanged, heldBackHere } from './held-back-here.js';

/** A progress line that rewrites itself, only when stderr is a terminal. */
function progress(ctx: Context, text: string | undefined): void {
  if (!ctx.stderrIsTTY) return;
  ctx.stderr.write(text === undefined ? '\r\x1b[K' : `\r\x1b[Ksparehand: ${text}`);
}

/** Runs `command` on a worker (or here, with --or-local, when none can take it). Returns the exit status. */
export async function runOnWorker(ctx: Context, config: Config, command: string, given: RemoteRunOptions): Promise<number> {
  const opts = { ...given, clock: given.clock ?? runClock(given.timeoutMs, Boolean(given.orLocal)) };
  const prefix = gentlePrefix(config, ctx.env.PATH);
  let signals: RunSignals | undefined;
  const local = (why: string) => runHere(ctx, command, why, hereOptions(opts, { prefix, signals }));
  const cannot = (why: string, hint: string): Promise<number> => {
    if (opts.orLocal) return local(why);
    return Promise.resolve(endRun(ctx, { kind: 'no-worker-can', why, hint }));
  };
  const git = gitRoot(ctx.cwd);
  const root = git ?? ctx.cwd;
  const refusal = whyNotSendable(root, { home: ctx.home, git: git !== undefined, config });
  if (refusal) return cannot(`refusing to send ${root} to a worker: ${refusal}`, 'run it inside a project (a git repository), or with --local');
  // Files held back from the worker for what they hold: named on the project's first run and when they change.
  const firstRun = !hasRunOf(ctx, root);
  const held = await heldBackHere(ctx, config, root);
  const heldChanged = heldBackChanged(root, held.plan);
  if (held.line && (heldChanged || firstRun)) say(ctx, held.line);
  // A project's first run names the services on this machine it seems to need (service-signs.ts).
  if (firstRun) {
    const signs = serviceSignsLine(ctx, config, root);
    if (signs) say(ctx, signs);
  }
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
  // A pool is the pods it has now (lib/remote/pools.ts); one that has none, or cannot be asked, is skipped with a line.
  if (candidates.some((w) => w.kubernetes)) {
    const pools = await expandPools(ctx, candidates);
    if (pools.workers.length === 0 && pools.failed[0])
      return cannot(pools.failed[0].error.message, pools.failed[0].error.hint ?? 'check `sparehand worker check`');
    for (const f of pools.failed) say(ctx, `${f.error.message}; skipped`);
    candidates = pools.workers;
  }
  signals = new RunSignals();
  try {
    const run = prepare(ctx, config, command, opts, root, held.plan);
    // A venv the command uses that no worker can make: said, not run there with another Python's packages.
    const venvCannot = venvUnmade(ctx, run);
    if (venvCannot) return await cannot(venvCannot, 'add a requirements or lock file that names what it holds, or run it here');
    // A worker whose install of these very files failed before is not asked again (failed-installs.ts).
    const failed = candidates.map((w) => ({ w, f: failedInstall(ctx, w, run.key, run.deps) }));
    const first = failed.find((c) => c.f !== undefined);
    if (first?.f && failed.every((c) => c.f !== undefined)) {
      return await cannot(
        failedInstallLine(first.w, first.f),
        `fix the install there (a changed lock file is tried again), or \`sparehand worker reset ${first.w.name}\` to forget it`,
      );
    }
    candidates = failed.filter((c) => c.f === undefined).map((c) => c.w);
    const claim = await claimSlot(ctx, candidates, {
      orLocal: Boolean(opts.orLocal),
      signals,
      open: (w, waited) => attempt(ctx, w, run, !waited),
      until: opts.clock.startBy,
      turn: opts.turn,
    });
    if ('stopped' in claim) return endRun(ctx, { kind: 'signalled', signal: signals.received ?? 'SIGTERM' });
    // Awaited: the queue's place and the signal handlers last until the run here ends (the finally below).
    if ('late' in claim) return await late(ctx, { ...opts, prefix, signals }, command, claim.late);
    if ('busy' in claim) return await local('all worker slots are busy');
    if ('refused' in claim) return await cannot(`${claim.worker.name}: ${claim.refused}`, 'install it there');
    if ('failures' in claim) {
      const first = claim.failures[0];
      const sandboxed = await sandboxRefused(ctx, config, claim.failures);
      return await cannot(sandboxed ?? first?.message ?? 'no worker reachable', first?.hint ?? 'check `sparehand worker check`');
    }
    // A worker's slot: the place in the local queue goes to the next run.
    opts.turn?.release();
    const forget = recordRun(ctx, claim.worker);
    if (opts.outcome)
      Object.assign(opts.outcome, {
        where: claim.worker.name,
        transport: claim.worker.exec ? 'exec' : 'ssh',
        ...(claim.waitedMs > 0 ? { waitMs: claim.waitedMs } : {}),
      });
    try {
      const socket = claim.attempt.socket;
      const refused = socket === undefined ? undefined : await addForwards(ctx, claim.worker, socket, run.services);
      if (refused) {
        claim.attempt.abandon();
        return await cannot(refused.message, refused.hint ?? 'see `sparehand help run.md`, "Services on this machine"');
      }
      return await runInSlot(ctx, { ...opts, prefix, signals, waitMs: claim.waitedMs }, run, { worker: claim.worker, attempt: claim.attempt, signals });
    } finally {
      claim.attempt.abandon();
      forget();
      // The forwards end with the run's own connection: the run ends when it has.
      if (claim.attempt.socket !== undefined) {
        await endedWithin(claim.attempt.session.ended, 3000);
        // ssh removes it as it ends; not when it was killed.
        rmSync(claim.attempt.socket, { force: true });
      }
    }
  } finally {
    signals.dispose();
    opts.turn?.release();
  }
}

/** What a run here needs from the run that tried the workers first. */
function hereOptions(opts: RemoteRunOptions & { clock: RunClock }, with_: { prefix: readonly string[]; signals?: RunSignals | undefined }): HereOptions {
  return {
    deadline: opts.clock.deadline,
    until: opts.clock.startBy,
    limit: `half of --timeout ${shownTimeout(opts.clock)}`,
    timeout: shownTimeout(opts.clock),
    turn: opts.turn,
    outcome: opts.outcome,
    ...with_,
  };
}

/**
 * The command could not start on a worker in time (`why`): with --or-local it runs here with the time left (at least
 * half of --timeout); without, the run ends (124) saying where the time went.
 */
function late(ctx: Context, opts: InSlot, command: string, why: string): Promise<number> | number {
  if (opts.orLocal)
    return runHere(
      ctx,
      command,
      `${why} within half of --timeout ${shownTimeout(opts.clock)}`,
      hereOptions(opts, { prefix: opts.prefix, signals: opts.signals }),
    );
  const end = { kind: 'late', limit: `--timeout ${shownTimeout(opts.clock)}`, why } as const;
  const status = endRun(ctx, end);
  // Logged as what it was, a stop before anything ran: on the worker it was on, or none yet (run-log.ts).
  if (opts.outcome) Object.assign(opts.outcome, { stopped: notStarted(end), ...(opts.outcome.where === 'here' ? { where: 'none' } : {}) });
  return status;
}

interface Claimed {
  worker: Worker;
  attempt: RunAttempt;
  signals: RunSignals;
}

/** A run's options once it tries the workers: its clock, how gently it would run here, how long it waited. */
type InSlot = RemoteRunOptions & { clock: RunClock; prefix: readonly string[]; signals?: RunSignals; waitMs?: number };

async function runInSlot(ctx: Context, opts: InSlot, run: Prepared, claimed: Claimed): Promise<number> {
  const { worker, attempt: at, signals } = claimed;
  const { session, target: t } = at;
  const { root, command } = run;

  // Send (already under way beside the claim, unless the run waited for its slot).
  progress(ctx, `syncing to ${worker.name}…`);
  signals.react(() => at.abandon());
  const sent = await (at.synced ?? send(ctx, t, anySignal(signals.abortSignal(), at.sendSignal), at.warm));
  progress(ctx, undefined);
  signals.react(undefined);
  if (signals.received) return endRun(ctx, { kind: 'signalled', signal: signals.received });
  if (at.sendSignal.aborted) {
    at.abandon();
    return late(ctx, opts, command, `sending the project to ${worker.name} did not finish`);
  }
  if ('error' in sent) {
    if (opts.orLocal && isSparehandError(sent.error)) {
      at.abandon();
      return runHere(ctx, command, sent.error.message, hereOptions(opts, { prefix: opts.prefix, signals }));
    }
    throw sent.error;
  }
  const upMs = sent.ms;
  if (sent.skipped && opts.outcome) opts.outcome.sent = sent.puts?.length ? 'own' : 'skipped';
  if (sent.before && opts.outcome) opts.outcome.looked = sent.before.looked;
  // An output another copy brought here and that was changed here since is this copy's to send too (withOtherCopies).
  if (run.watch) at.ancestor = withOtherCopies(root, at.copy, at.ancestor);

  // sparehand's own changes to the copy: what was deleted or changed here in outputs since the last run there.
  const own = run.watch ? ownChanges(root, at.ancestor, underMatcher(notBroughtBack(run.config))) : { changes: [], after: at.ancestor };
  // (Nothing sent but these when the send was skipped: the worker's copy is then as its last run left it.)
  session.go([...own.changes, ...(sent.puts ?? filePuts(root, sent.blind ?? []))], sent.skipped === true);

  // Run there; what the command changed comes back at the end of the same session.
  const note = toolchainNote(ctx, worker, run.programs);
  const there = `${worker.name}:${t.remoteRoot}`;
  try {
    const t1 = performance.now();
    const result = at.tty
      ? await execTerminal(ctx, session, {
          argv: (jobFile) => remoteArgv(worker, t.conn, bootCommand(jobFile), { tty: true }),
          env: sshEnv(ctx),
          deadline: opts.clock.deadline,
          signals,
          root,
        })
      : await session.run({ deadline: opts.clock.deadline, startBy: opts.clock.startBy, signals });
    const execEnd = performance.now();
    // Nothing ran there (the session ended before the command started): with --or-local it runs here.
    const nothingRan = (): Promise<number> => {
      const end = { kind: 'lost-before-start', worker: worker.name } as const;
      if (opts.orLocal) return runHere(ctx, command, endLine(end), hereOptions(opts, { prefix: opts.prefix, signals }));
      return Promise.resolve(endRun(ctx, end));
    };
    if (result === undefined) return await nothingRan();
    const runEnd = result.seenAt ?? execEnd;
    // A run stopped or lost once its command had started still ran: the log keeps its times (report.ts).
    const soFar = timesOnWorker(result, { asked: t1, end: runEnd });
    if (opts.outcome && soFar.runMs !== undefined) Object.assign(opts.outcome, { syncMs: upMs, ...soFar });
    if (result.stoppedBy === 'late') {
      session.close();
      return late(ctx, opts, command, `${worker.name} had not started the command${result.phase === 'deps' ? ' (it was installing dependencies)' : ''}`);
    }
    if (result.stoppedBy === 'timeout') {
      const limit = `--timeout ${shownTimeout(opts.clock)}`;
      if (result.status !== undefined && result.endedBeforeDeadline) {
        // The command had ended: its status stands; its files did not come back in time.
        return endRun(ctx, { kind: 'files-late', status: result.status, limit, there });
      }
      const ran = result.phase === 'run' || result.status !== undefined;
      if (ran) return endRun(ctx, { kind: 'ran-past', limit });
      const end = { kind: 'late-on-worker', limit, worker: worker.name, deps: result.phase === 'deps' } as const;
      const status = endRun(ctx, end);
      if (opts.outcome) Object.assign(opts.outcome, { stopped: notStarted(end), syncMs: upMs, ...soFar });
      return status;
    }
    if (result.stoppedBy !== undefined) return endRun(ctx, { kind: 'signalled', signal: result.stoppedBy });
    // A refusal once the command had started is not one (the command may have run): never run again here.
    if (result.refused !== undefined && result.phase === 'run') return endRun(ctx, { kind: 'refused-after-start', worker: worker.name, why: result.refused });
    if (result.refused !== undefined) {
      rememberFailure(ctx, worker, run.key, run.deps, result);
      const end = { kind: 'worker-refused', worker: worker.name, why: result.refused } as const;
      if (opts.orLocal) return runHere(ctx, command, endLine(end), hereOptions(opts, { prefix: opts.prefix, signals }));
      return endRun(ctx, end);
    }
    if (result.status === undefined) {
      if (!result.broken && result.phase !== 'run') return await nothingRan();
      return endRun(
        ctx,
        result.broken ? { kind: 'not-sparehands', worker: worker.name, why: result.broken } : { kind: 'lost-while-running', worker: worker.name },
      );
    }
    const status = result.status;
    if (result.platform) await rememberWorkerPlatform(ctx, worker, result.platform);
    const unforwarded = at.refused.end().filter((p) => !run.services.some((f) => f.port === p) && !run.started.some((w) => w.port === p));
    if (unforwarded.length > 0) say(ctx, refusedLine(worker.name, unforwarded));
    if (result.broken || result.report.broken || !result.report.done) {
      session.close();
      const why = result.broken ?? result.report.broken;
      return endRun(ctx, why ? { kind: 'report-untrusted', status, why, there } : { kind: 'lost-while-bringing-back', worker: worker.name });
    }

    // Bring back, and report.
    const t2 = performance.now();
    const back = opts.syncBack === false ? undefined : await bringBack(ctx, run, at, own.after, result, there);
    session.close();
    if (back && sent.before && !signals.received) await keepFingerprint(run, at, sent.before, result, back);
    for (const line of [...conflictLines(back?.conflicts ?? [], printable), ...keptLines(back?.kept ?? [], relativeCwd(root, ctx.cwd)), ...(back?.notes ?? [])])
      say(ctx, line);
    const syncMs = upMs + (execEnd - runEnd) + (performance.now() - t2);
    const depsMs = (result.depsSeconds ?? 0) * 1000;
    const times = {
      syncMs,
      runMs: Math.max(0, runEnd - t1 - depsMs),
      ...(result.depsSeconds === undefined ? {} : { depsMs }),
      ...(opts.waitMs ? { waitMs: opts.waitMs } : {}),
    };
    if (!opts.quiet) for (const line of summaryLines(worker.name, times, back)) say(ctx, line);
    // What the forwards cost is ssh's, on every request: said where the run's time is (docs/performance.md).
    if (!opts.quiet && run.services.length > 0) say(ctx, forwardedLine(run.services));
    if (opts.outcome) Object.assign(opts.outcome, { ...times, files: back?.files ?? 0, bytes: back?.bytes ?? 0, conflicts: back?.conflicts.length ?? 0 });
    for (const line of await note()) say(ctx, line);
    // A signal that came while the files were applied: they all are; the run ends as the signal asks.
    if (signals.received) return endRun(ctx, { kind: 'signalled', signal: signals.received });
    return endRun(ctx, { kind: 'ran', status });
  } finally {
    if (run.staged()) {
      const yours = yoursLine(removeStaging(root, run.nonce));
      if (yours) say(ctx, yours);
    }
  }
}
