// `sparehand run`: the command on a worker, or here. (The work is in lib/run; this file only wires options.)
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { projectRoot } from '../project-root.js';
import { type RunOutcome, appendLog } from '../run/run-log.js';
import { commandString } from '../run/command-string.js';
import { parseDuration } from '../run/duration.js';
import { runHere, runLocal } from '../run/local.js';
import { runOnWorker } from '../run/remote.js';

export interface RunOptions {
  orLocal?: boolean;
  local?: boolean;
  worker?: string;
  timeout?: string;
  syncBack?: boolean;
  quiet?: boolean;
}

export function register(program: Command, ctx: Context, setExit: (n: number) => void): void {
  program
    .command('run')
    .description('run a command on a worker (synced there and back), or here with --or-local / --local')
    .option('--or-local', 'run here when no worker is configured, reachable or free')
    .option('--local', 'run here, never on a worker')
    .option('--worker <name>', 'use this worker (also: SPAREHAND_WORKER)')
    .option('--timeout <dur>', 'stop the command after this long (e.g. 90s, 10m); exit status 124')
    .option('--no-sync-back', 'do not bring changed files back')
    .option('--quiet', 'no summary line')
    .argument('<command...>', "one shell string ('npm test && npm run build') or an argv")
    .allowUnknownOption(false)
    .action(async (args: string[], opts: RunOptions) => {
      setExit(await run(ctx, commandString(args), opts));
    });
}

export async function run(ctx: Context, command: string, opts: RunOptions): Promise<number> {
  const outcome: RunOutcome = { where: 'here' };
  const start = new Date();
  let exit = 125;
  try {
    exit = await runSomewhere(ctx, command, opts, outcome);
    return exit;
  } catch (e) {
    if (isSparehandError(e)) exit = e.exitCode;
    throw e;
  } finally {
    appendLog(ctx, { start: start.toISOString(), project: projectRoot(ctx.cwd), command, exit, totalMs: Date.now() - start.getTime(), ...outcome });
  }
}

async function runSomewhere(ctx: Context, command: string, opts: RunOptions, outcome: RunOutcome): Promise<number> {
  const timeoutMs = opts.timeout === undefined ? undefined : parseDuration(opts.timeout);
  if (opts.local) {
    say(ctx, 'running locally (--local)');
    outcome.why = '--local';
    return runLocal(ctx, command, { timeoutMs });
  }
  const config = loadConfig(ctx);
  if ((config.workers ?? []).length === 0) {
    if (!opts.orLocal) {
      throw new SparehandError('WORKER', 'no worker is configured', {
        hint: 'add one with `sparehand worker add NAME user@host`, or run with --or-local to run here',
      });
    }
    return runHere(ctx, command, 'no worker configured', timeoutMs, outcome);
  }
  return runOnWorker(ctx, config, command, {
    orLocal: opts.orLocal,
    worker: opts.worker,
    timeoutMs,
    syncBack: opts.syncBack,
    quiet: opts.quiet,
    outcome,
  });
}
