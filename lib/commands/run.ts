// `sparehand run`: the command on a worker, or here. (Workers: lib/remote; this file only wires options.)
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { commandString } from '../run/command-string.js';
import { runLocal } from '../run/local.js';

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
    .option('--timeout <dur>', 'stop the command after this long (e.g. 90s, 10m)')
    .option('--no-sync-back', 'do not bring changed files back')
    .option('--quiet', 'no summary line')
    .argument('<command...>', "one shell string ('npm test && npm run build') or an argv")
    .allowUnknownOption(false)
    .action(async (args: string[], opts: RunOptions) => {
      setExit(await run(ctx, commandString(args), opts));
    });
}

export async function run(ctx: Context, command: string, opts: RunOptions): Promise<number> {
  const config = loadConfig(ctx);
  const workers = config.workers ?? [];
  if (opts.local || workers.length === 0) {
    if (!opts.local && !opts.orLocal) {
      throw new SparehandError('WORKER', 'no worker is configured', {
        hint: 'add one with `sparehand worker add NAME user@host`, or run with --or-local to run here',
      });
    }
    say(ctx, opts.local ? 'running locally (--local)' : 'running locally: no worker configured');
    return runLocal(ctx, command);
  }
  throw new SparehandError('WORKER', 'running on workers is not implemented yet', {
    hint: 'use --local',
  });
}
