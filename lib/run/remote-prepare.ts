// What a remote run knows before it asks any worker: the project, its key and dependencies, the job the worker
// program gets, and the questions about this machine a run asks (a venv in use, the programs found here).
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { mayBeBuilt } from '../classify/built-outputs.js';
import { programsOf } from '../classify/programs.js';
import type { Config, Worker } from '../config.js';
import type { Context } from '../context.js';
import type { Job } from '../remote/job.js';
import { remotePath } from '../remote/ssh-args.js';
import { NO_SECRETS, type SecretPlan } from '../send/held-back.js';
import { notBroughtBack, pruneNames, skipArgument, skipRules } from '../remote/sync-rules.js';
import { workerDir, workerSlots } from '../remote/workers.js';
import { runRecord } from '../remote/worker-slots.js';
import { newGeneration } from '../sync/ancestor.js';
import { foldsCase, makeStaging } from '../state/own-folder.js';
import type { Staging } from '../remote/report-reader.js';
import { which } from '../which.js';
import type { RunClock } from './clock.js';
import { type DepsInstall, depsPlan } from './deps.js';
import { forwardedEnv } from './env.js';
import type { LocalTurn } from './local-slots.js';
import { clientId, projectKey, relativeCwd } from './project.js';
import { type VenvHere, projectDeps } from './venv-here.js';
import type { RunOutcome } from './run-log.js';
import { type Forward, type WorkerService, servicesFor, workerServicesFor } from './services.js';
import { type ShardMark, shownWithMark } from './shard-mark.js';

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
  /** A shard of a split run (lib/split/): shown with its mark where runs are listed. */
  shard?: ShardMark;
}

/** What one run sends, decided once before any worker is asked. */
export interface Prepared {
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
  /** The services the worker starts for the run (services.ts). */
  started: WorkerService[];
  startedAt: Date;
  clock: RunClock;
  shard?: ShardMark;
  staging: Staging;
  /** Whether staging was made (and must be removed). */
  staged: () => boolean;
  /** The secret list's tracked files sent, and the files held back for what they hold (held-back.ts). */
  secrets: SecretPlan;
}

export function prepare(
  ctx: Context,
  config: Config,
  command: string,
  opts: RemoteRunOptions & { clock: RunClock },
  root: string,
  secrets: SecretPlan = NO_SECRETS,
): Prepared {
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
    started: workerServicesFor(ctx, config, root),
    startedAt: new Date(),
    clock: opts.clock,
    ...(opts.shard ? { shard: opts.shard } : {}),
    staging: {
      dir: () => {
        made ??= sameFolder(root, rootId) ? makeStaging(root, nonce) : { why: 'the project folder was moved or deleted during the run' };
        return 'dir' in made ? made.dir : undefined;
      },
      why: () => (made && 'why' in made ? made.why : 'its content could not be kept here'),
    },
    staged: () => made !== undefined && 'dir' in made,
    secrets,
  };
}

/** Whether `root` is still the folder the run started in. */
export function sameFolder(root: string, id: { dev: number; ino: number }): boolean {
  try {
    const st = lstatSync(root);
    return st.isDirectory() && st.dev === id.dev && st.ino === id.ino;
  } catch {
    return false;
  }
}

/** What the worker program is asked to do, for the session in `how.mode`. */
export function jobFor(ctx: Context, worker: Worker, run: Prepared, how: { mode: Job['mode']; folder: number; gen: string }): Job {
  return {
    mode: how.mode,
    dir: remotePath(workerDir(worker)),
    key: run.key,
    slots: workerSlots(worker),
    folder: how.folder,
    record: runRecord({ machine: hostname(), user: `${userInfo().username}@${hostname()}`, project: run.root, command: shownWithMark(run.command, run.shard) }),
    rel: relativeCwd(run.root, ctx.cwd),
    command: run.command,
    skip: skipArgument(skipRules(notBroughtBack(run.config))),
    prune: pruneNames(notBroughtBack(run.config)),
    watch: run.watch,
    deps: run.deps.map((d) => ({ ...d, ...dependencyFolder(d) })),
    venv: activeVenv(ctx, run.root),
    programs: run.programs,
    env: forwardedEnv(ctx.env, run.config),
    services: run.started,
    gen: how.gen,
    newgen: newGeneration(),
  };
}

/** Why the venv the command would use (active here, or named in it) cannot be made on a worker; else undefined. */
export function venvUnmade(ctx: Context, run: Prepared): string | undefined {
  const v = run.venv;
  if (!v?.cannot) return undefined;
  const path = v.dir === '.' ? v.name : `${v.dir}/${v.name}`;
  if (activeVenv(ctx, run.root) !== path && !run.command.includes(v.name)) return undefined;
  return `the project's virtual environment ${path} cannot be made on a worker from what is installed in it here: ${v.cannot}`;
}

/** The folder an install fills, and how deep its names are compared (worker/deps.pl fingerprint). */
export function dependencyFolder(d: DepsInstall): { folder?: string; depth?: number } {
  if (d.fills) return { folder: d.fills, depth: 4 };
  if (d.files.some((f) => /^(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|package\.json)$/.test(f)))
    return { folder: 'node_modules', depth: 2 };
  if (d.files.some((f) => /^(uv\.lock|poetry\.lock|pdm\.lock|Pipfile\.lock|requirements.*\.txt)$/.test(f))) return { folder: '.venv', depth: 4 };
  if (d.files.includes('composer.lock')) return { folder: 'vendor', depth: 2 };
  return {};
}

export function foldsCaseHere(run: Prepared): boolean {
  const dir = run.staging.dir();
  return dir === undefined ? false : foldsCase(dir);
}

/** The project's .venv that the caller's shell has active (VIRTUAL_ENV inside the project), relative to it; else ''. */
export function activeVenv(ctx: Context, root: string): string {
  const venv = ctx.env.VIRTUAL_ENV;
  if (!venv) return '';
  const rel = relative(root, resolve(ctx.cwd, venv));
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? '' : rel.split(sep).join('/');
}

/**
 * The programs the command starts that exist here: the worker must have them too (else it runs here). Not one
 * that a part before it may build (`make && ./a.out`): the worker has it once that part ran.
 */
export function programsFoundHere(ctx: Context, command: string): string[] {
  return programsOf(command).filter((p, i) =>
    p.includes('/') ? !(i > 0 && mayBeBuilt(p)) && existsSync(resolve(ctx.cwd, p)) : which(p, ctx.env.PATH) !== undefined,
  );
}
