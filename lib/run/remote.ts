// `sparehand run` on a worker: pick a free slot, connect, sync up, run, sync back, one summary line.
import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config, Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { connect, connectionFor, sshEnv } from '../remote/connection.js';
import { execRemote } from '../remote/exec.js';
import { remoteCommand } from '../remote/remote-script.js';
import { type SlotLock, lockAny } from '../remote/slots.js';
import { sshArgs } from '../remote/ssh-args.js';
import { fetchBack, listBack, type SyncTarget, syncUp } from '../remote/sync.js';
import { findWorker } from '../remote/workers.js';
import { depsPlan } from './deps.js';
import { forwardedEnv } from './env.js';
import { runHere } from './local.js';
import { projectRoot } from '../project-root.js';
import { relativeCwd, remoteRoot } from './project.js';
import { parseItems, planBack } from './sync-back.js';

export interface RemoteRunOptions {
  orLocal?: boolean | undefined;
  worker?: string | undefined;
  timeoutMs?: number | undefined;
  syncBack?: boolean | undefined;
  quiet?: boolean | undefined;
}

const WAIT_POLL_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** A progress line that rewrites itself, only when stderr is a terminal. */
function progress(ctx: Context, text: string | undefined): void {
  if (!ctx.stderrIsTTY) return;
  ctx.stderr.write(text === undefined ? '\r\x1b[K' : `\r\x1b[Ksparehand: ${text}`);
}

/** A free slot on a reachable worker, in config order; undefined (with the reasons) when none is reachable. */
async function claimSlot(ctx: Context, candidates: readonly Worker[], orLocal: boolean): Promise<{ lock?: SlotLock; failures: SparehandError[]; busy: boolean }> {
  const failures: SparehandError[] = [];
  let pool = [...candidates];
  let waiting = false;
  while (pool.length > 0) {
    const lock = lockAny(ctx, pool);
    if (!lock) {
      if (orLocal) return { failures, busy: true };
      if (!waiting) say(ctx, `all slots on ${pool.map((w) => w.name).join(', ')} are busy; waiting for one`);
      waiting = true;
      await sleep(WAIT_POLL_MS);
      continue;
    }
    try {
      await connect(ctx, lock.worker);
      return { lock, failures, busy: false };
    } catch (e) {
      lock.release();
      if (!isSparehandError(e)) throw e;
      failures.push(e);
      pool = pool.filter((w) => w !== lock.worker);
    }
  }
  return { failures, busy: false };
}

/** Runs `command` on a worker (or here, with --or-local, when none can take it). Returns the exit status. */
export async function runOnWorker(ctx: Context, config: Config, command: string, opts: RemoteRunOptions): Promise<number> {
  const name = opts.worker ?? ctx.env.SPAREHAND_WORKER;
  const candidates = name ? [findWorker(config, name)] : (config.workers ?? []);
  const local = (why: string) => runHere(ctx, command, why, opts.timeoutMs);
  const claim = await claimSlot(ctx, candidates, Boolean(opts.orLocal));
  if (!claim.lock) {
    if (claim.busy) return local(`all worker slots are busy`);
    const first = claim.failures[0];
    const why = first?.message ?? 'no worker reachable';
    if (opts.orLocal) return local(why);
    throw new SparehandError('WORKER', why, { hint: `${first?.hint ? `${first.hint}; ` : ''}or run with --or-local to run here when no worker can` });
  }
  const lock = claim.lock;
  try {
    return await runInSlot(ctx, config, command, opts, lock);
  } finally {
    lock.release();
  }
}

async function runInSlot(ctx: Context, config: Config, command: string, opts: RemoteRunOptions, lock: SlotLock): Promise<number> {
  const { worker, slot } = lock;
  const root = projectRoot(ctx.cwd);
  const t: SyncTarget = { worker, conn: connectionFor(ctx, worker), config, localRoot: root, remoteRoot: remoteRoot(worker, root, slot), env: sshEnv(ctx) };
  const t0 = performance.now();
  const startedMs = Date.now();
  progress(ctx, `syncing to ${worker.name}…`);
  try {
    await syncUp(t);
  } catch (e) {
    progress(ctx, undefined);
    if (opts.orLocal && isSparehandError(e)) return runHere(ctx, command, e.message, opts.timeoutMs);
    throw e;
  }
  progress(ctx, undefined);
  const upMs = performance.now() - t0;
  const deps = config.sync?.copyDependencies ? undefined : depsPlan(root);
  const tty = ctx.stdinIsTTY && Boolean((ctx.stdout as { isTTY?: boolean }).isTTY);
  const remote = remoteCommand({
    tty,
    root: t.remoteRoot,
    rel: relativeCwd(root, ctx.cwd),
    stamp: `../${slot}.deps`,
    depsHash: deps?.hash ?? '',
    depsCommand: deps?.command ?? '',
    command,
    env: forwardedEnv(ctx.env, config),
  });
  const t1 = performance.now();
  const result = await execRemote(ctx, { args: sshArgs(worker, t.conn, remote, { tty }), env: t.env, tty, timeoutMs: opts.timeoutMs });
  const runMs = performance.now() - t1;
  if (result.stoppedBy === 'timeout') say(ctx, `stopped: the command ran longer than --timeout`);
  let back = 0;
  let conflicts: string[] = [];
  const t2 = performance.now();
  if (opts.syncBack !== false && (result.stoppedBy === undefined || result.stoppedBy === 'timeout')) {
    try {
      const plan = await planBack(parseItems(await listBack(t)), root, startedMs);
      await fetchBack(t, plan.fetch);
      for (const p of plan.remove) await rm(join(root, p), { force: true });
      for (const d of plan.removeDirs.reverse()) await rmdir(join(root, d)).catch(() => undefined);
      back = plan.fetch.length + plan.remove.length;
      conflicts = plan.conflicts;
    } catch (e) {
      // The command ran: its status stands when it failed; a success whose files did not come back is not one.
      if (!isSparehandError(e)) throw e;
      say(ctx, `the command ran on ${worker.name}, but its files could not be brought back: ${e.message}`);
      return result.status === 0 ? 125 : result.status;
    }
    for (const c of conflicts) say(ctx, `conflict: ${c} changed here while the command ran; kept the local file (the worker's copy was not brought back)`);
  }
  const backMs = performance.now() - t2;
  if (!opts.quiet) {
    say(ctx, `ran on ${worker.name}: sync ${secs(upMs + backMs)}, run ${secs(runMs)}, ${back} file${back === 1 ? '' : 's'} back, ${conflicts.length} conflict${conflicts.length === 1 ? '' : 's'}`);
  }
  return result.status;
}
