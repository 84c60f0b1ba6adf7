// `sparehand run`: the command on a worker, or here. (The work is in lib/run; this file only wires options.)
import { writeSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { SparehandCommand } from './command.js';
import { quote } from 'shell-quote';
import { loadConfigOrKept } from '../config.js';
import { type Context, say } from '../context.js';
import { isSparehandError } from '../errors.js';
import { projectRoot } from '../project-root.js';
import { type RunOutcome, appendLog } from '../run/run-log.js';
import { commandString } from '../run/command-string.js';
import { parseDuration } from '../run/duration.js';
import { endRun } from '../run/endings.js';
import { runHere, runLocal } from '../run/local.js';
import { runOnWorker } from '../run/remote.js';
import { runClock, shownTimeout } from '../run/clock.js';
import type { Config } from '../config.js';
import { gentlePrefix } from '../run/gentle.js';
import { localTurn } from '../run/local-wait.js';
import { RunSignals } from '../run/signals.js';
import { type ShardMark, parseShardMark, shownWithMark } from '../run/shard-mark.js';

export interface RunOptions {
  orLocal?: boolean;
  local?: boolean;
  /** With --local: take a local slot first (wait in the local queue). */
  queue?: boolean;
  worker?: string;
  /** Milliseconds (parsed from `--timeout`). */
  timeout?: number;
  syncBack?: boolean;
  quiet?: boolean;
  /** `--split N|auto`: the test command as shards on free slots at once (lib/split/). */
  split?: string;
  /** A shard of a split run (set by the run that split it, never by hand): its mark, for the log and status. */
  shardOf?: ShardMark;
}

const HELP = `
Put \`--\` before the command, so that its own options are not taken for sparehand's:
  sparehand run --or-local -- npm test -- --coverage
  sparehand run --or-local -- 'cd pkg && npm test 2>&1 | tail -50'

Exit status: the command's own; 124 after --timeout; 128+N when it was stopped by signal N; 255 when the
connection to the worker was lost while it ran (nothing is brought back); 125 when sparehand itself failed before
the command started (a bad option or config, no worker reachable without --or-local).
`;

/**
 * For `run ls -la`: the same line with `--` put before the command, or undefined when `--` is already there (then
 * the unknown option is a mistyped option of sparehand's own). `run` is the command as registered: its options,
 * and its program's (but --version), are sparehand's.
 */
export function dashDashHint(args: readonly string[], run: Command): string | undefined {
  if (args.includes('--')) return undefined;
  const options = [...run.options, ...(run.parent?.options ?? [])].filter((o) => o.long !== undefined && o.long !== '--version');
  const valueOptions = new Set(options.filter((o) => o.required || o.optional).map((o) => o.long));
  const flags = new Set(options.filter((o) => !(o.required || o.optional)).map((o) => o.long));
  const at = args.indexOf('run');
  const ours: string[] = [];
  let i = at + 1;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (flags.has(a) || valueOptions.has(a.split('=')[0]!)) {
      ours.push(a);
      if (valueOptions.has(a) && i + 1 < args.length) ours.push(args[++i]!);
    } else break;
  }
  return `put \`--\` before the command: ${['sparehand run', ...ours, '--', quote(args.slice(i))].join(' ')}`;
}

/** `--timeout`: a duration above zero (`--timeout 0` would stop every command at once), in milliseconds. */
function timeoutOption(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    throw new InvalidArgumentError(`${e.message}; use e.g. 90s, 10m, 1h30m`);
  }
  if (!(ms > 0)) throw new InvalidArgumentError('must be more than 0 (e.g. 90s, 10m, 1h30m)');
  return ms;
}

export function register(program: SparehandCommand, ctx: Context): void {
  program
    .command('run')
    .description('run a command on a worker (synced there and back), or here with --or-local / --local')
    .option('--or-local', 'run here when no worker is configured, reachable or free')
    .option('--local', 'run here, never on a worker')
    .option('--queue', 'with --local: wait for a local slot first, as runs here without a worker do (local.slots)')
    .option('--worker <name>', 'use this worker (also: SPAREHAND_WORKER)')
    .option(
      '--timeout <dur>',
      'end the whole run within this long (e.g. 90s, 10m): connecting, waiting, sending, installing and the command; exit status 124',
      timeoutOption,
    )
    .option('--split <n|auto>', 'a test command as N shards on free slots at once (auto: as many as are free now), one merged result')
    .addOption(new Option('--shard-of <mark>').hideHelp().argParser(shardOfOption))
    .option('--no-sync-back', 'do not bring changed files back')
    .option('--quiet', 'no summary line')
    .argument('<command...>', "after --: one shell string ('npm test && npm run build') or an argv")
    .addHelpText('after', HELP)
    .allowUnknownOption(false)
    .action(async (args: string[], opts: RunOptions) => {
      const command = commandString(args);
      // Thrown by endRun: lib/cli.ts says it and gives 125.
      if (command.trim() === '') return endRun(ctx, { kind: 'empty-command' });
      if (opts.split !== undefined && !opts.shardOf) {
        // Loaded lazily: a run that does not split never loads the planner.
        const { runSplit } = await import('../split/run-command.js');
        const split = await runSplit(ctx, command, { ...opts, split: opts.split, timeoutMs: opts.timeout });
        if (split !== undefined) return split;
      }
      return await run(ctx, command, opts);
    });
}

function shardOfOption(text: string): ShardMark {
  const mark = parseShardMark(text);
  if (!mark) throw new InvalidArgumentError('is set by `--split` for each of its shards');
  return mark;
}

/** A shard tells the run that split it where it ran and how it ended, on its fd 3 (lib/split/run-split.ts). */
function reportShard(entry: RunOutcome & { exit: number }): void {
  try {
    writeSync(3, JSON.stringify({ where: entry.where, exit: entry.exit, files: entry.files ?? 0, conflicts: entry.conflicts ?? 0 }));
  } catch {
    // Not started by a split (no fd 3): nothing to tell.
  }
}

async function run(ctx: Context, command: string, opts: RunOptions): Promise<number> {
  const outcome: RunOutcome = { where: 'here', ...(opts.shardOf ? { split: opts.shardOf } : {}) };
  const start = new Date();
  // A failure of sparehand's own under `run` is 125 (lib/cli.ts).
  let exit = 125;
  try {
    exit = await runSomewhere(ctx, command, opts, outcome);
    return exit;
  } catch (e) {
    // Refused before the command started (no worker, a usage error, the worker refused): not a run here.
    if (outcome.runMs === undefined) {
      outcome.refused = isSparehandError(e) ? e.message : 'internal error';
      if (outcome.where === 'here') outcome.where = 'none';
    }
    throw e;
  } finally {
    appendLog(ctx, { start: start.toISOString(), project: projectRoot(ctx.cwd), command, exit, totalMs: Date.now() - start.getTime(), ...outcome });
    if (opts.shardOf) reportShard({ ...outcome, exit });
  }
}

async function runSomewhere(ctx: Context, command: string, opts: RunOptions, outcome: RunOutcome): Promise<number> {
  const timeoutMs = opts.timeout;
  // From sparehand's own start (the process's), not the command's: the whole run is bounded. A run that may go
  // here waits at most half of it for a slot (clock.ts startBy).
  const clock = runClock(timeoutMs, Boolean(opts.orLocal || opts.local), Math.floor(performance.timeOrigin));
  if (opts.local) {
    // --local never fails for the config: it only says how gently to run, and how many at once (a broken file is
    // named first, and the last good one used, as for every run).
    const config: Config = loadConfigOrKept(ctx, (l) => say(ctx, l));
    const prefix = gentlePrefix(config, ctx.env.PATH);
    outcome.why = '--local';
    if (!opts.queue) {
      say(ctx, 'running locally (--local)');
      return runLocal(ctx, command, { timeoutMs, prefix, limit: `--timeout ${shownTimeout(clock)}` });
    }
    return withSignals((signals) =>
      runHere(ctx, command, '--local --queue', {
        deadline: clock.deadline,
        until: clock.startBy,
        limit: `half of --timeout ${shownTimeout(clock)}`,
        timeout: shownTimeout(clock),
        turn: localTurn(ctx, config, command),
        signals,
        prefix,
        outcome,
      }),
    );
  }
  if (opts.queue) return endRun(ctx, { kind: 'queue-without-local' });
  // A broken config file is named first; the run goes on with the last good one (the hooks do the same).
  const config = loadConfigOrKept(ctx, (l) => say(ctx, l));
  // Every run that may wait takes its turn: for a slot here (with --or-local) and for the workers' slots.
  const turn = localTurn(ctx, config, shownWithMark(command, opts.shardOf));
  if ((config.workers ?? []).length === 0) {
    if (!opts.orLocal) return endRun(ctx, { kind: 'no-worker-configured' });
    // The first line a newcomer sees: it says what to do next.
    const why = 'no worker configured; to run on a spare machine, add one: `sparehand worker add NAME user@host`';
    const prefix = gentlePrefix(config, ctx.env.PATH);
    return withSignals((signals) =>
      runHere(ctx, command, why, {
        deadline: clock.deadline,
        until: clock.startBy,
        limit: `half of --timeout ${shownTimeout(clock)}`,
        timeout: shownTimeout(clock),
        turn,
        signals,
        prefix,
        outcome,
      }),
    );
  }
  return runOnWorker(ctx, config, command, {
    orLocal: opts.orLocal,
    worker: opts.worker,
    timeoutMs,
    clock,
    turn,
    syncBack: opts.syncBack,
    quiet: opts.quiet,
    outcome,
    ...(opts.shardOf ? { shard: opts.shardOf } : {}),
  });
}

/** Signals while a run waits for its slot: the wait ends as the run would (128+N); the command gets its own. */
async function withSignals<T>(f: (signals: RunSignals) => Promise<T>): Promise<T> {
  const signals = new RunSignals();
  try {
    return await f(signals);
  } finally {
    signals.dispose();
  }
}
