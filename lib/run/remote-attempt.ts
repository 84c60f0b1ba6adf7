import type { Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { connectionFor, sshEnv } from '../remote/connection.js';
import type { Job } from '../remote/job.js';
import { rememberWorkerRsync, rsyncHere, rsyncThere } from '../remote/rsync-found.js';
import { type OwnChange, type Session, openSession } from '../remote/session.js';
import { ownSocket } from './forward.js';
import { sshOwnLines } from '../remote/ssh-lines.js';
import { sshOwnSessionArgs } from '../remote/ssh-args.js';
import { hasTerminal, remoteArgv, sshWorker, workerWhere } from '../remote/transport.js';
import { type SyncTarget, syncUp } from '../send/rsync-up.js';
import type { Fingerprint } from '../send/fingerprint-parts.js';
import { changedSince, fingerprint, quickCheckBlind } from '../send/warm-send.js';
import { type SentRecord, type Warm, keepSent, sentRecord, takeWarm } from '../send/warm-kept.js';
import { bootCommand } from '../remote/worker/program.js';
import { type Ancestor, copyId, emptyAncestor, keptPaths, loadAncestor } from '../sync/ancestor.js';
import type { Attempt } from './claim.js';
import { takeFolder } from './folders.js';
import { depsInputs } from './deps.js';
import { remoteRoot } from './project.js';
import { RefusedPorts } from './refused-ports.js';
import { type Prepared, jobFor } from './remote-prepare.js';

/** Waits for `ended` (a session's end), at most `ms`. */
export async function endedWithin(ended: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ended.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** How long the send took (`skipped`: nothing had changed), and the fingerprint taken before it (warm-send.ts); or what failed. */
export type Sent = { ms: number; skipped?: boolean; before?: Fingerprint | undefined; blind?: string[]; puts?: OwnChange[] } | { error: unknown };

/** For a warm run: the session that says whether the copy is untouched, and the fingerprint kept after the last run. */
export interface WarmPlan {
  session: Session;
  kept: Warm | undefined;
  /** Whether to take a fingerprint at all (runs that bring files back). */
  wanted: boolean;
  /** The copy (ancestor.ts copyId), and what the last send to it sent (warm-kept.ts sentRecord). */
  copy: string;
  sent: () => SentRecord | undefined;
}

/**
 * Sends the project with the rsync each side has: how long it took, or what failed (after a failure the next run
 * looks at the worker's rsync again). Nothing is sent when the fingerprint is the one kept after the last run and
 * the worker says its copy is untouched since.
 */
export async function send(ctx: Context, t: SyncTarget, signal: AbortSignal, warm: WarmPlan): Promise<Sent> {
  const t0 = performance.now();
  try {
    const before = warm.wanted
      ? await fingerprint(t.localRoot, t.env, t.config, { keep: t.keep ?? [], inputs: t.inputs ?? [], ...(t.secrets ? { secrets: t.secrets } : {}) }, warm.kept)
      : undefined;
    // The same fingerprint, or a few files changed here (sent in the run's own session): no rsync, when the worker
    // says its copy is as the last run left it.
    const own = before && warm.kept ? (before.hash === warm.kept.hash ? [] : changedSince(warm.kept, before, t.localRoot)) : undefined;
    if (before && warm.kept && own) {
      const there = await Promise.race([
        warm.session.copy,
        new Promise<undefined>((r) => signal.addEventListener('abort', () => r(undefined), { once: true })),
      ]);
      if (signal.aborted) return { ms: performance.now() - t0 };
      if (there?.same && there.gen === warm.kept.gen) return { ms: performance.now() - t0, skipped: true, before, puts: own };
    }
    // Files rsync's quick check cannot see changed (their mtime put back) go up as sparehand's own changes: against
    // the fingerprint the last whole run kept, or else what the last send sent (after a conflict, a lost session).
    const then = before ? (warm.kept ?? warm.sent()) : undefined;
    const blind = before && then ? quickCheckBlind(then, before) : [];
    const rsyncs = { here: await rsyncHere(ctx), there: await rsyncThere(ctx, t.worker, t.conn) };
    await syncUp(t, rsyncs, signal, before?.ignored).catch(async (e: unknown) => {
      await rememberWorkerRsync(ctx, t.worker, undefined);
      throw e;
    });
    if (before && !signal.aborted) keepSent(t.localRoot, warm.copy, before, blind);
    return { ms: performance.now() - t0, before, blind };
  } catch (error) {
    return { error };
  }
}

/** A try at one worker: one of the project's copies there, its ancestor, the session that claims a slot, and the project sent. */
export interface RunAttempt extends Attempt {
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
  /** The socket of the run's own connection, when it forwards services (lib/run/forward.ts). */
  socket?: string;
  /** The localhost ports the command's output says were refused (refused-ports.ts). */
  refused: RefusedPorts;
}

/**
 * Starts the session that claims a slot on `worker` and, with `sendNow`, sends the project to the run's copy
 * there at the same time: the claim costs no round trip of its own.
 */
export function attempt(ctx: Context, worker: Worker, run: Prepared, sendNow: boolean): RunAttempt {
  const conn = connectionFor(ctx, worker);
  // Services go through a connection of the run's own, never the shared one (ssh-args.ts sshOwnSessionArgs).
  const socket = run.services.length > 0 ? ownSocket(conn) : undefined;
  // An exec worker has no ssh to carry them (lib/remote/transport.ts).
  if (run.services.length > 0 && worker.exec !== undefined) {
    throw new SparehandError(
      'WORKER',
      `${worker.name}: this machine's services cannot be forwarded to an exec worker (${workerWhere(worker)}): only ssh carries them`,
      {
        hint: 'run it on an ssh worker, or here; or start the service in the container or pod',
      },
    );
  }
  if (run.services.length > 0 && socket === undefined) {
    throw new SparehandError(
      'WORKER',
      `${worker.name}: this machine's services cannot be forwarded: unix sockets are refused here, and the run's own connection needs one`,
      {
        hint: 'run it outside the sandbox, or here',
      },
    );
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
  const session = openSession(ctx, {
    argv,
    env: sshEnv(ctx),
    job,
    staging: run.staging,
    root: run.root,
    onOutput: (b) => refused.push(b),
    // The run's own master (its forwards) speaks on this session's stderr: its lines become sparehand's sentences.
    ...(socket === undefined ? {} : { sshLines: sshOwnLines(worker.name, (l) => say(ctx, l)) }),
  });
  // What the copy keeps for itself (another platform's binaries, never brought here) stays there through the sync.
  const keep = keptPaths(run.root, run.watch ? ancestor : loadAncestor(run.root, copy));
  const target: SyncTarget = {
    worker,
    conn,
    config: run.config,
    localRoot: run.root,
    remoteRoot: remoteRoot(worker, run.key, folder.index),
    env: sshEnv(ctx),
    keep,
    inputs: depsInputs(run.deps),
    secrets: run.secrets,
  };
  const stop = new AbortController();
  // The project must be there by the time the command has to start.
  const lateSend = run.clock.startBy === undefined ? undefined : setTimeout(() => stop.abort(), Math.max(0, run.clock.startBy - Date.now()));
  lateSend?.unref();
  const warm: WarmPlan = {
    session,
    kept: run.watch ? kept : undefined,
    wanted: run.watch,
    copy,
    sent: () => (run.watch ? sentRecord(run.root, copy) : undefined),
  };
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

/** An AbortSignal that aborts when any of `signals` does. */
export function anySignal(...signals: AbortSignal[]): AbortSignal {
  const ac = new AbortController();
  for (const s of signals) {
    if (s.aborted) ac.abort();
    else s.addEventListener('abort', () => ac.abort(), { once: true });
  }
  return ac.signal;
}
