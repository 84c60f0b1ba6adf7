// `sparehand run` on a worker, step by step: claim a slot → send the project → sparehand's own changes to the
// copy (the ancestor's) → run the command there (its changes come back in the same session) → check and apply
// them here → remember what both sides hold → report. Or run here, with --or-local, when no worker can.
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, rmSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { projectSettingsPaths } from '../agents/project-settings.js';
import { mayBeBuilt } from '../classify/built-outputs.js';
import { programsOf } from '../classify/programs.js';
import type { Config, Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { exitStatus } from '../process.js';
import { gitRoot } from '../project-root.js';
import { connectionFor, sshEnv } from '../remote/connection.js';
import type { Job } from '../remote/job.js';
import { rememberWorkerRsync, rsyncHere, rsyncThere } from '../remote/rsync-found.js';
import { type ExecResult, type OwnChange, type Session, execTerminal, openSession } from '../remote/session.js';
import { addForwards, ownSocket } from '../remote/forward.js';
import { remotePath, sshOwnSessionArgs } from '../remote/ssh-args.js';
import { hasTerminal, remoteArgv, sshWorker, workerWhere } from '../remote/transport.js';
import { expandPools } from '../remote/pools.js';
import { notBroughtBack, pruneNames, skipArgument, skipMatcher, skipRules } from '../remote/sync-rules.js';
import { type SyncTarget, syncUp } from '../remote/sync.js';
import { type Fingerprint, changedSince, filePuts, fingerprint, quickCheckBlind } from '../remote/warm-send.js';
import { type Warm, ctimeNow, keepWarm, takeWarm } from '../sync/warm-kept.js';
import { bootCommand } from '../remote/worker/program.js';
import { findWorker, workerDir, workerSlots } from '../remote/workers.js';
import { rememberWorkerPlatform } from '../remote/worker-facts.js';
import { runRecord } from '../remote/worker-slots.js';
import { printable } from '../safe-text.js';
import { type Ancestor, afterRun, copyId, emptyAncestor, keptPaths, loadAncestor, mineIndex, newGeneration, ownChanges, saveAncestor } from '../sync/ancestor.js';
import { type Applied, applyChanges, contentNeeded } from '../sync/apply.js';
import type { Change } from '../sync/change.js';
import { isToolSettings, refusedLink, refusedPath } from '../sync/guard.js';
import { foldsCase, makeConflictsFolder, makeStaging, ownFolder, removeStaging } from '../sync/own-folder.js';
import type { Staging } from '../sync/report-reader.js';
import { ignoredAmong } from '../sync/sent.js';
import { which } from '../which.js';
import { networkCutHere, sandboxRefused } from '../sandbox/run-checks.js';
import { type Attempt, claimSlot } from './claim.js';
import { type RunClock, runClock, shownTimeout } from './clock.js';
import { takeFolder } from './folders.js';
import { type DepsInstall, depsInputs, depsPlan } from './deps.js';
import { forwardedEnv } from './env.js';
import { failedInstall, failedInstallLine, rememberFailure } from './failed-installs.js';
import { type HereOptions, runHere } from './local.js';
import { gentlePrefix } from './gentle.js';
import type { LocalTurn } from './local-slots.js';
import { clientId, projectKey, relativeCwd, remoteRoot } from './project.js';
import { recordRun } from './runs-here.js';
import { conflictLines, keptLines, summaryLines } from './report.js';
import { foreignCheck } from './foreign.js';
import { whyNotSendable } from './sendable.js';
import { toolchainNote } from './toolchain-note.js';
import { type VenvHere, projectDeps } from './venv-here.js';
import { type RunOutcome, hasRunOf } from './run-log.js';
import { serviceSignsLine } from './service-signs.js';
import { RunSignals } from './signals.js';
import { RefusedPorts, refusedLine } from './refused-ports.js';
import { type Forward, servicesFor } from './services.js';

export interface RemoteRunOptions {
  orLocal?: boolean | undefined;
  worker?: string | undefined;
  timeoutMs?: number | undefined;
  /** The run's time bounds, from sparehand's start (clock.ts); made from timeoutMs when not given. */
  clock?: RunClock;
  syncBack?: boolean | undefined;
  quiet?: boolean | undefined;
  /** Filled in as the run goes, for the log. */
  outcome?: RunOutcome;
  /** The run's place in the local queue (local-wait.ts), with --or-local when local slots are on. */
  turn?: LocalTurn | undefined;
}

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
    throw new SparehandError('WORKER', why, { hint: `${hint}; or run with --or-local to run here when no worker can` });
  };
  const git = gitRoot(ctx.cwd);
  const root = git ?? ctx.cwd;
  const refusal = whyNotSendable(root, { home: ctx.home, git: git !== undefined, config });
  if (refusal) return cannot(`refusing to send ${root} to a worker: ${refusal}`, 'run it inside a project (a git repository), or with --local');
  // A project's first run names the services on this machine it seems to need (service-signs.ts).
  if (!hasRunOf(ctx, root)) {
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
    if (pools.workers.length === 0 && pools.failed[0]) return cannot(pools.failed[0].error.message, pools.failed[0].error.hint ?? 'check `sparehand worker check`');
    for (const f of pools.failed) say(ctx, `${f.error.message}; skipped`);
    candidates = pools.workers;
  }
  signals = new RunSignals();
  try {
    const run = prepare(ctx, config, command, opts, root);
    // A venv the command uses that no worker can make: said, not run there with another Python's packages.
    const venvCannot = venvUnmade(ctx, run);
    if (venvCannot) return await cannot(venvCannot, 'add a requirements or lock file that names what it holds, or run it here');
    // A worker whose install of these very files failed before is not asked again (failed-installs.ts).
    const failed = candidates.map((w) => ({ w, f: failedInstall(ctx, w, run.key, run.deps) }));
    const first = failed.find((c) => c.f !== undefined);
    if (first?.f && failed.every((c) => c.f !== undefined)) {
      return await cannot(failedInstallLine(first.w, first.f), `fix the install there (a changed lock file is tried again), or \`sparehand worker reset ${first.w.name}\` to forget it`);
    }
    candidates = failed.filter((c) => c.f === undefined).map((c) => c.w);
    const claim = await claimSlot(ctx, candidates, { orLocal: Boolean(opts.orLocal), signals, open: (w, waited) => attempt(ctx, w, run, !waited), until: opts.clock.startBy, turn: opts.turn });
    if ('stopped' in claim) return exitStatus(null, signals.received ?? 'SIGTERM');
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
    if (opts.outcome) Object.assign(opts.outcome, { where: claim.worker.name, transport: claim.worker.exec ? 'exec' : 'ssh', ...(claim.waitedMs > 0 ? { waitMs: claim.waitedMs } : {}) });
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
  return { deadline: opts.clock.deadline, until: opts.clock.startBy, limit: `half of --timeout ${shownTimeout(opts.clock)}`, turn: opts.turn, outcome: opts.outcome, ...with_ };
}

/**
 * The command could not start on a worker in time (`why`): with --or-local it runs here with the time left (at least
 * half of --timeout); without, the run ends (124) saying where the time went.
 */
function late(ctx: Context, opts: InSlot, command: string, why: string): Promise<number> | number {
  if (opts.orLocal) return runHere(ctx, command, `${why} within half of --timeout ${shownTimeout(opts.clock)}`, hereOptions(opts, { prefix: opts.prefix, signals: opts.signals }));
  say(ctx, `stopped: --timeout ${shownTimeout(opts.clock)} was reached before the command started (${why}); nothing ran`);
  return 124;
}

/** Waits for `ended` (a session's end), at most `ms`. */
async function endedWithin(ended: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ended.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** How long the send took (`skipped`: nothing had changed), and the fingerprint taken before it (warm-send.ts); or what failed. */
type Sent =
  | { ms: number; skipped?: boolean; before?: Fingerprint | undefined; blind?: string[]; puts?: OwnChange[] }
  | { error: unknown };

/** For a warm run: the session that says whether the copy is untouched, and the fingerprint kept after the last run. */
interface WarmPlan {
  session: Session;
  kept: Warm | undefined;
  /** Whether to take a fingerprint at all (runs that bring files back). */
  wanted: boolean;
}

/**
 * Sends the project with the rsync each side has: how long it took, or what failed (after a failure the next run
 * looks at the worker's rsync again). Nothing is sent when the fingerprint is the one kept after the last run and
 * the worker says its copy is untouched since.
 */
async function send(ctx: Context, t: SyncTarget, signal: AbortSignal, warm: WarmPlan): Promise<Sent> {
  const t0 = performance.now();
  try {
    const before = warm.wanted ? await fingerprint(t.localRoot, t.env, t.config, { keep: t.keep ?? [], inputs: t.inputs ?? [] }) : undefined;
    // The same fingerprint, or a few files changed here (sent in the run's own session): no rsync, when the worker
    // says its copy is as the last run left it.
    const own = before && warm.kept ? (before.hash === warm.kept.hash ? [] : changedSince(warm.kept, before, t.localRoot)) : undefined;
    if (before && warm.kept && own) {
      const there = await Promise.race([warm.session.copy, new Promise<undefined>((r) => signal.addEventListener('abort', () => r(undefined), { once: true }))]);
      if (signal.aborted) return { ms: performance.now() - t0 };
      if (there?.same && there.gen === warm.kept.gen) return { ms: performance.now() - t0, skipped: true, before, puts: own };
    }
    // Files rsync's quick check cannot see changed (their mtime put back) go up as sparehand's own changes.
    const blind = before && warm.kept ? quickCheckBlind(warm.kept, before) : [];
    const rsyncs = { here: await rsyncHere(ctx), there: await rsyncThere(ctx, t.worker, t.conn) };
    await syncUp(t, rsyncs, signal, before?.ignored).catch(async (e: unknown) => {
      await rememberWorkerRsync(ctx, t.worker, undefined);
      throw e;
    });
    return { ms: performance.now() - t0, before, blind };
  } catch (error) {
    return { error };
  }
}

/** A try at one worker: one of the project's copies there, its ancestor, the session that claims a slot, and the project sent. */
interface RunAttempt extends Attempt {
  folder: number;
  /** Whether the command runs with a terminal there (the terminal session). */
  tty: boolean;
  target: SyncTarget;
  /** The copy's ancestor file (lib/sync/ancestor.ts copyId) and what it held when the run started. */
  copy: string;
  ancestor: Ancestor;
  job: Job;
  /** The sync started beside the claim (undefined: send once the slot is had). */
  synced?: Promise<Sent>;
  warm: WarmPlan;
  /** Aborted when the sync must stop (the run's start-by time, or the attempt abandoned). */
  sendSignal: AbortSignal;
  /** The socket of the run's own connection, when it forwards services (lib/remote/forward.ts). */
  socket?: string;
  /** The localhost ports the command's output says were refused (refused-ports.ts). */
  refused: RefusedPorts;
}

/**
 * Starts the session that claims a slot on `worker` and, with `sendNow`, sends the project to the run's copy
 * there at the same time: the claim costs no round trip of its own.
 */
function attempt(ctx: Context, worker: Worker, run: Prepared, sendNow: boolean): RunAttempt {
  const conn = connectionFor(ctx, worker);
  // Services go through a connection of the run's own, never the shared one (ssh-args.ts sshOwnSessionArgs).
  const socket = run.services.length > 0 ? ownSocket(conn) : undefined;
  // An exec worker has no ssh to carry them (lib/remote/transport.ts).
  if (run.services.length > 0 && worker.exec !== undefined) {
    throw new SparehandError('WORKER', `${worker.name}: this machine's services cannot be forwarded to an exec worker (${workerWhere(worker)}): only ssh carries them`, {
      hint: 'run it on an ssh worker, or here; or start the service in the container or pod',
    });
  }
  if (run.services.length > 0 && socket === undefined) {
    throw new SparehandError('WORKER', `${worker.name}: this machine's services cannot be forwarded: unix sockets are refused here, and the run's own connection needs one`, {
      hint: 'run it outside the sandbox, or here',
    });
  }
  const folder = takeFolder(ctx, worker, run.key, run.root);
  const copy = copyId(worker, folder.index, run.key);
  const ancestor = run.watch ? loadAncestor(run.root, copy) : emptyAncestor();
  // An exec worker gives the command no terminal (transport.ts hasTerminal): it runs as with no terminal here.
  const tty = run.tty && hasTerminal(worker);
  // Taken in any case: a run without the sync back leaves the copy as its command made it.
  const kept = takeWarm(run.root, copy);
  const job = { ...jobFor(ctx, worker, run, { mode: tty ? 'hold' : 'pipe', folder: folder.index, gen: ancestor.gen }), warm: run.watch && kept !== undefined };
  const refused = new RefusedPorts();
  const argv = socket === undefined ? remoteArgv(worker, conn, bootCommand()) : ['ssh', ...sshOwnSessionArgs(sshWorker(worker), conn, socket, bootCommand())];
  const session = openSession(ctx, { argv, env: sshEnv(ctx), job, staging: run.staging, root: run.root, onOutput: (b) => refused.push(b) });
  // What the copy keeps for itself (another platform's binaries, never brought here) stays there through the sync.
  const keep = keptPaths(run.root, run.watch ? ancestor : loadAncestor(run.root, copy));
  const target: SyncTarget = { worker, conn, config: run.config, localRoot: run.root, remoteRoot: remoteRoot(worker, run.key, folder.index), env: sshEnv(ctx), keep, inputs: depsInputs(run.deps) };
  const stop = new AbortController();
  // The project must be there by the time the command has to start.
  const lateSend = run.clock.startBy === undefined ? undefined : setTimeout(() => stop.abort(), Math.max(0, run.clock.startBy - Date.now()));
  lateSend?.unref();
  const warm: WarmPlan = { session, kept: run.watch ? kept : undefined, wanted: run.watch };
  const synced = sendNow ? send(ctx, target, stop.signal, warm) : undefined;
  let done = false;
  return {
    warm,
    folder: folder.index,
    tty,
    target,
    copy,
    ancestor,
    job,
    session,
    ...(synced ? { synced } : {}),
    ...(socket === undefined ? {} : { socket }),
    refused,
    sendSignal: stop.signal,
    abandon: () => {
      if (done) return;
      done = true;
      clearTimeout(lateSend);
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
  /** The project folder as it was when the run started: nothing is written into another one at that path. */
  rootId: { dev: number; ino: number };
  /** The project's folder on a worker (project.ts projectKey). */
  key: string;
  nonce: string;
  tty: boolean;
  watch: boolean;
  programs: string[];
  deps: DepsInstall[];
  /** The project's venv when no lock or requirements file makes it (venv-here.ts). */
  venv?: VenvHere;
  /** This machine's services the run forwards (services.ts). */
  services: Forward[];
  startedAt: Date;
  clock: RunClock;
  staging: Staging;
  /** Whether staging was made (and must be removed). */
  staged: () => boolean;
}

function prepare(ctx: Context, config: Config, command: string, opts: RemoteRunOptions & { clock: RunClock }, root: string): Prepared {
  const nonce = randomBytes(12).toString('hex');
  const st = lstatSync(root);
  let made: { dir: string } | { why: string } | undefined;
  const rootId = { dev: st.dev, ino: st.ino };
  return {
    config,
    command,
    root,
    rootId,
    key: projectKey(root, clientId(ctx, root)),
    nonce,
    tty: ctx.stdinIsTTY && Boolean((ctx.stdout as { isTTY?: boolean }).isTTY),
    watch: opts.syncBack !== false,
    programs: programsFoundHere(ctx, command),
    ...(config.sync?.copyDependencies ? { deps: [] } : projectDeps(root, ctx.cwd, ctx.env.VIRTUAL_ENV, depsPlan(root, ctx.cwd))),
    services: servicesFor(ctx, config, root),
    startedAt: new Date(),
    clock: opts.clock,
    staging: {
      dir: () => {
        made ??= sameFolder(root, rootId) ? makeStaging(root, nonce) : { why: 'the project folder was moved or deleted during the run' };
        return 'dir' in made ? made.dir : undefined;
      },
      why: () => (made && 'why' in made ? made.why : 'its content could not be kept here'),
    },
    staged: () => made !== undefined && 'dir' in made,
  };
}

/** An AbortSignal that aborts when any of `signals` does. */
function anySignal(...signals: AbortSignal[]): AbortSignal {
  const ac = new AbortController();
  for (const s of signals) {
    if (s.aborted) ac.abort();
    else s.addEventListener('abort', () => ac.abort(), { once: true });
  }
  return ac.signal;
}

/** Whether `root` is still the folder the run started in. */
function sameFolder(root: string, id: { dev: number; ino: number }): boolean {
  try {
    const st = lstatSync(root);
    return st.isDirectory() && st.dev === id.dev && st.ino === id.ino;
  } catch {
    return false;
  }
}

/** What the worker program is asked to do, for the session in `how.mode`. */
function jobFor(ctx: Context, worker: Worker, run: Prepared, how: { mode: Job['mode']; folder: number; gen: string }): Job {
  return {
    mode: how.mode,
    dir: remotePath(workerDir(worker)),
    key: run.key,
    slots: workerSlots(worker),
    folder: how.folder,
    record: runRecord({ machine: hostname(), user: `${userInfo().username}@${hostname()}`, project: run.root, command: run.command }),
    rel: relativeCwd(run.root, ctx.cwd),
    command: run.command,
    skip: skipArgument(skipRules(notBroughtBack(run.config))),
    prune: pruneNames(notBroughtBack(run.config)),
    watch: run.watch,
    deps: run.deps.map((d) => ({ ...d, ...dependencyFolder(d) })),
    venv: activeVenv(ctx, run.root),
    programs: run.programs,
    env: forwardedEnv(ctx.env, run.config),
    gen: how.gen,
    newgen: newGeneration(),
  };
}

/** Why the venv the command would use (active here, or named in it) cannot be made on a worker; else undefined. */
function venvUnmade(ctx: Context, run: Prepared): string | undefined {
  const v = run.venv;
  if (!v?.cannot) return undefined;
  const path = v.dir === '.' ? v.name : `${v.dir}/${v.name}`;
  if (activeVenv(ctx, run.root) !== path && !run.command.includes(v.name)) return undefined;
  return `the project's virtual environment ${path} cannot be made on a worker from what is installed in it here: ${v.cannot}`;
}

/** The folder an install fills, and how deep its names are compared (worker/deps.pl.ts fingerprint). */
function dependencyFolder(d: DepsInstall): { folder?: string; depth?: number } {
  if (d.fills) return { folder: d.fills, depth: 4 };
  if (d.files.some((f) => /^(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|package\.json)$/.test(f))) return { folder: 'node_modules', depth: 2 };
  if (d.files.some((f) => /^(uv\.lock|poetry\.lock|pdm\.lock|Pipfile\.lock|requirements.*\.txt)$/.test(f))) return { folder: '.venv', depth: 4 };
  if (d.files.includes('composer.lock')) return { folder: 'vendor', depth: 2 };
  return {};
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
  if (signals.received) return exitStatus(null, signals.received);
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

  // sparehand's own changes to the copy: what was deleted or changed here in outputs since the last run there.
  const own = run.watch ? ownChanges(root, at.ancestor) : { changes: [], after: at.ancestor };
  session.go([...own.changes, ...(sent.puts ?? filePuts(root, sent.blind ?? []))]);

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
    if (result === undefined) {
      say(ctx, `the connection to ${worker.name} was lost before the command started; nothing ran there`);
      return 255;
    }
    const runEnd = result.seenAt ?? execEnd;
    if (result.stoppedBy === 'late') {
      session.close();
      return late(ctx, opts, command, `${worker.name} had not started the command${result.phase === 'deps' ? ' (it was installing dependencies)' : ''}`);
    }
    if (result.stoppedBy === 'timeout') {
      const limit = `--timeout ${shownTimeout(opts.clock)}`;
      if (result.status !== undefined && result.endedBeforeDeadline) {
        // The command had ended: its status stands; its files did not come back in time.
        say(ctx, `the command ended (exit ${result.status}), but its files did not come back within ${limit}; nothing was brought back, they stay in the worker's copy (${worker.name}:${t.remoteRoot})`);
        return result.status;
      }
      say(ctx, result.phase === 'run' || result.status !== undefined
        ? `stopped: the command ran past ${limit}; nothing was brought back`
        : `stopped: ${limit} was reached before the command started on ${worker.name}${result.phase === 'deps' ? ' (it was installing dependencies)' : ''}; nothing ran`);
      return 124;
    }
    if (result.stoppedBy !== undefined) return exitStatus(null, result.stoppedBy);
    if (result.refused !== undefined) {
      rememberFailure(ctx, worker, run.key, run.deps, result);
      if (opts.orLocal) return runHere(ctx, command, `${worker.name}: ${result.refused}`, hereOptions(opts, { prefix: opts.prefix, signals }));
      throw new SparehandError('WORKER', `${worker.name}: ${result.refused}`, { hint: 'or run with --or-local to run here when the worker cannot' });
    }
    if (result.status === undefined) {
      say(ctx, result.broken
        ? `${worker.name} sent something that is not sparehand's (${result.broken}); its fate is unknown and nothing was brought back`
        : `the connection to ${worker.name} was lost while the command ran; its fate is unknown and nothing was brought back`);
      return 255;
    }
    const status = result.status;
    if (result.platform) await rememberWorkerPlatform(ctx, worker, result.platform);
    const unforwarded = at.refused.end().filter((p) => !run.services.some((f) => f.port === p));
    if (unforwarded.length > 0) say(ctx, refusedLine(worker.name, unforwarded));
    if (result.broken || result.report.broken || !result.report.done) {
      session.close();
      const why = result.broken ?? result.report.broken;
      say(ctx, why
        ? `the report of what the command changed cannot be trusted (${why}); nothing was brought back, the command's files stay in the worker's copy (${there})`
        : `the connection to ${worker.name} was lost while the command's files came back; nothing was brought back`);
      return why ? status : 255;
    }

    // Bring back, and report.
    const t2 = performance.now();
    const back = opts.syncBack === false ? undefined : await bringBack(ctx, run, at, own.after, result, there);
    session.close();
    if (back && sent.before && !signals.received) await keepFingerprint(run, at, sent.before, result, back);
    for (const line of [...conflictLines(back?.conflicts ?? [], printable), ...keptLines(back?.kept ?? []), ...(back?.notes ?? [])]) say(ctx, line);
    const syncMs = upMs + (execEnd - runEnd) + (performance.now() - t2);
    const depsMs = (result.depsSeconds ?? 0) * 1000;
    const times = { syncMs, runMs: Math.max(0, runEnd - t1 - depsMs), ...(result.depsSeconds === undefined ? {} : { depsMs }), ...(opts.waitMs ? { waitMs: opts.waitMs } : {}) };
    if (!opts.quiet) for (const line of summaryLines(worker.name, times, back)) say(ctx, line);
    if (opts.outcome) Object.assign(opts.outcome, { ...times, files: back?.files ?? 0, bytes: back?.bytes ?? 0, conflicts: back?.conflicts.length ?? 0 });
    for (const line of await note()) say(ctx, line);
    // A signal that came while the files were applied: they all are; the run ends as the signal asks.
    if (signals.received) return exitStatus(null, signals.received);
    return status;
  } finally {
    if (run.staged()) removeStaging(root, run.nonce);
  }
}

/**
 * Checks the command's changes and applies them here (lib/sync/apply.ts), then remembers what the copy and this
 * machine hold (the ancestor). Nothing is written when the project folder is gone or sparehand's folder cannot be
 * used: one line says so and where the files are.
 */
async function bringBack(ctx: Context, run: Prepared, at: RunAttempt, base: Ancestor, result: ExecResult, there: string): Promise<Applied> {
  const { root } = run;
  const changes = result.report.changes;
  const none: Applied = { files: 0, touched: 0, bytes: 0, byFolder: new Map(), conflicts: [], kept: [], notes: [], outcomes: new Map() };
  if (changes.length === 0) {
    saveAncestor(root, at.copy, { ...(result.ancestor === 'same' ? base : emptyAncestor()), gen: at.job.newgen });
    return none;
  }
  const gone = !sameFolder(root, run.rootId) ? 'the project folder was moved or deleted during the run' : undefined;
  const own = gone ? undefined : ownFolder(root);
  const why = gone ?? (own && 'why' in own ? `sparehand's folder here is refused: ${own.why}` : undefined);
  if (why) return { ...none, conflicts: [{ kind: 'no-root', path: '.', detail: why, there }] };

  const ignored = await ignoredAmong(root, changes.map((c) => c.path), ctx.env);
  const notSent = (p: string) => ignored.has(p);
  const mine = mineIndex(root);
  const settings = projectSettingsPaths();
  // What the worker claims it skipped is checked here again: never a secret, a dependency folder or a cache.
  const skipped = skipMatcher(skipRules(notBroughtBack(run.config)));
  const neverBack = (c: Change) => {
    const parts = c.path.split('/');
    const hit = parts.some((_, i) => skipped(`${parts.slice(0, i + 1).join('/')}${i < parts.length - 1 || c.type === 'd' ? '/' : ''}`));
    return hit ? 'it is a secret, a dependency folder or a cache, which never come back' : undefined;
  };
  const ancestor = result.ancestor === 'same' ? base : emptyAncestor();
  const foreign = foreignCheck(ctx, at.target.worker, result.platform);
  const known = (c: Change) => ({
    sent: !notSent(c.path),
    mine: mine(c.path),
    refused: refusedPath(c.path) ?? (c.type === 'l' ? refusedLink(c.path, c.target) : undefined) ?? neverBack(c),
    settings: isToolSettings(c.path, settings),
    foreign: foreign(c),
    keptThere: ancestor.paths[c.path]?.k === 1,
  });
  const wanted = at.tty ? [] : contentNeeded(changes, { root, known });
  if (wanted.length > 0) await at.session.fetch(wanted);
  let conflicts: string | undefined;
  let folds: boolean | undefined;
  const applied = applyChanges(changes, {
    root,
    conflictsDir: () => (conflicts ??= makeConflictsFolder(root, run.startedAt, run.nonce)),
    scratch: () => run.staging.dir() ?? root,
    foldsCase: () => (folds ??= foldsCaseHere(run)),
    known,
    there,
    printable,
  });
  saveAncestor(root, at.copy, afterRun(ancestor, root, changes, applied.outcomes, notSent, at.job.newgen));
  return applied;
}

/**
 * Keeps the fingerprint for the next run (warm-send.ts) when every change the command made was applied here: then
 * the copy holds what this project holds. A conflict, a refusal, a file kept there or not written here: nothing kept.
 */
async function keepFingerprint(run: Prepared, at: RunAttempt, before: Fingerprint, result: ExecResult, back: Applied): Promise<void> {
  const changes = result.report.changes;
  const whole = back.conflicts.length === 0 && back.kept.length === 0 && changes.every((c) => ['applied', 'same'].includes(back.outcomes.get(c.index) ?? ''));
  if (!whole) return;
  const own = ownFolder(run.root, 'sync');
  if ('why' in own) return;
  const by = changes.length === 0 ? 0 : await ctimeNow(own.dir);
  keepWarm(run.root, at.copy, at.job.newgen, before, changes, by);
}

function foldsCaseHere(run: Prepared): boolean {
  const dir = run.staging.dir();
  return dir === undefined ? false : foldsCase(dir);
}

/** The project's .venv that the caller's shell has active (VIRTUAL_ENV inside the project), relative to it; else ''. */
function activeVenv(ctx: Context, root: string): string {
  const venv = ctx.env.VIRTUAL_ENV;
  if (!venv) return '';
  const rel = relative(root, resolve(ctx.cwd, venv));
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? '' : rel.split(sep).join('/');
}

/**
 * The programs the command starts that exist here: the worker must have them too (else it runs here). Not one
 * that a part before it may build (`make && ./a.out`): the worker has it once that part ran.
 */
function programsFoundHere(ctx: Context, command: string): string[] {
  return programsOf(command).filter((p, i) =>
    p.includes('/') ? !(i > 0 && mayBeBuilt(p)) && existsSync(resolve(ctx.cwd, p)) : which(p, ctx.env.PATH) !== undefined,
  );
}

