// `sparehand run --split N|auto`: one test command as N shards at once, each a normal `sparehand run` of its own
// rewritten command (its own slot, its own sync there and back), and one result as if it ran whole: the output of
// each shard in shard order, the worst exit status, one summary line. Shards are processes of their own so that
// every promise of a run (its slot, its bring-back, its signals, its log entry) holds per shard unchanged.
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { start } from '../process.js';
import { secs } from '../run/report.js';
import { self } from '../self.js';
import { freeSlots } from './free-slots.js';
import { type Plan, planSplit } from './plan.js';
import { newSplitId, shardMarkText } from '../run/shard-mark.js';
import { diskView } from './view.js';

export interface SplitOptions {
  /** `auto`, or a number of shards. */
  split: string;
  orLocal?: boolean | undefined;
  worker?: string | undefined;
  timeoutMs?: number | undefined;
  syncBack?: boolean | undefined;
  quiet?: boolean | undefined;
}

/** What a shard's run reports on its fd 3 when it ends (lib/commands/run.ts): where it ran, how it ended. */
export interface ShardReport {
  where?: string;
  exit?: number;
  files?: number;
  conflicts?: number;
}

const MAX_SHARDS = 64;
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
/** After --timeout, how long the shards have to end on their own (they stop at it themselves) before SIGTERM. */
const PAST_DEADLINE_MS = 15_000;

/** `--split` as given: `auto` or 1…64. */
export function splitCount(text: string): number | 'auto' {
  if (text === 'auto') return 'auto';
  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > MAX_SHARDS)
    throw new SparehandError('USAGE', `--split takes a number of shards (1 to ${MAX_SHARDS}) or auto, not "${text}"`, {
      hint: 'e.g. --split 4, or --split auto',
    });
  return Number(text);
}

/** The plan for `command` with the slots asked for; `count` is how many were asked (or found free). */
export async function splitPlan(ctx: Context, config: Config, command: string, o: SplitOptions): Promise<{ plan: Plan; count: number; free?: string }> {
  const asked = splitCount(o.split);
  if (asked !== 'auto') return { plan: planSplit(command, asked, diskView(ctx.cwd)), count: asked };
  const free = await freeSlots(ctx, config, o);
  const count = Math.max(1, Math.min(MAX_SHARDS, free.total));
  if (count < 2)
    return { plan: { whole: `--split auto: ${free.total === 0 ? 'no slot is' : 'one slot is'} free now (${free.where})` }, count, free: free.where };
  return { plan: planSplit(command, count, diskView(ctx.cwd)), count, free: free.where };
}

/**
 * Runs the shards of `plan` and returns the worst exit status. Output: the first unfinished shard's streams live,
 * the others kept until it ends, so each shard's output appears whole and in shard order (docs/run.md "Split").
 */
export async function runShards(ctx: Context, plan: Extract<Plan, { shards: string[] }>, o: SplitOptions): Promise<number> {
  const started = Date.now();
  const deadline = o.timeoutMs === undefined ? undefined : Math.floor(performance.timeOrigin) + o.timeoutMs;
  const id = newSplitId();
  const n = plan.shards.length;
  say(ctx, `split ${id}: ${n} shards (${plan.how})`);
  const me = self();
  const out = new OrderedOutput(ctx, n);
  const children: ChildProcess[] = [];
  const ended = plan.shards.map((shardCommand, k) => {
    const left = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
    const args = [
      me.script,
      'run',
      ...(o.orLocal ? ['--or-local'] : []),
      ...(o.worker ? ['--worker', o.worker] : []),
      ...(left === undefined ? [] : ['--timeout', `${left}ms`]),
      ...(o.syncBack === false ? ['--no-sync-back'] : []),
      '--quiet',
      '--shard-of',
      shardMarkText({ id, shard: k + 1, of: n }),
      '--',
      shardCommand,
    ];
    // Its own process group: a Ctrl-C reaches each shard once, from here (a second one then stops it at once).
    const child = start(me.node, args, { cwd: ctx.cwd, env: ctx.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true });
    children.push(child);
    out.attach(k, child.stdout as Readable, child.stderr as Readable);
    return shardEnd(child, k, out);
  });
  const handlers = FORWARDED.map((sig) => {
    const h = () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  const late =
    deadline === undefined
      ? undefined
      : setTimeout(
          () => {
            for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
          },
          Math.max(0, deadline - Date.now()) + PAST_DEADLINE_MS,
        );
  let results: Array<{ exit: number; report: ShardReport }>;
  try {
    results = await Promise.all(ended);
  } finally {
    clearTimeout(late);
    for (const [sig, h] of handlers) process.off(sig, h);
  }
  await out.done();
  const worst = worstExit(results.map((r) => r.exit));
  if (!o.quiet) say(ctx, summaryLine(id, results, Date.now() - started));
  return worst;
}

/** The shard's exit status and what it reported on fd 3 (nothing when it died before it could). */
function shardEnd(child: ChildProcess, k: number, out: OrderedOutput): Promise<{ exit: number; report: ShardReport }> {
  const chunks: Buffer[] = [];
  (child.stdio[3] as Readable | null)?.on('data', (b: Buffer) => chunks.length < 64 && chunks.push(b));
  return new Promise((resolve) => {
    child.once('error', (e) => {
      out.line(k, `sparehand: shard ${k + 1} could not start: ${e.message}\n`);
      resolve({ exit: 125, report: {} });
    });
    child.once('close', (code, signal) => {
      let report: ShardReport = {};
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        if (parsed && typeof parsed === 'object') report = parsed as ShardReport;
      } catch {
        /* none: it ended before it could say */
      }
      const exit = code ?? (signal ? 128 + (signalNumber(signal) ?? 15) : 125);
      out.end(k);
      resolve({ exit, report });
    });
  });
}

const signalNumber = (s: NodeJS.Signals): number | undefined => ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 })[s as string];

/**
 * The worst of the shards' statuses: a lost connection (255) over a signal (128+N) over sparehand's own failure
 * (125) over a timeout (124) over the command's own failures; 0 only when every shard passed.
 */
export function worstExit(exits: readonly number[]): number {
  return exits.reduce((a, b) => Math.max(a, b), 0);
}

/** `split 3fa2c1d0: 4 shards on w1, w2: 3 passed, 1 failed (shard 3) in 5.1s`. */
export function summaryLine(id: string, results: ReadonlyArray<{ exit: number; report: ShardReport }>, ms: number): string {
  const where = [...new Set(results.map((r) => r.report.where).filter((w): w is string => typeof w === 'string' && w !== '' && w !== 'none'))];
  const failed = results.flatMap((r, k) => (r.exit === 0 ? [] : [k + 1]));
  const passed = results.length - failed.length;
  const conflicts = results.reduce((s, r) => s + (typeof r.report.conflicts === 'number' ? r.report.conflicts : 0), 0);
  const fails = failed.length === 0 ? '' : `, ${failed.length} failed (shard${failed.length === 1 ? '' : 's'} ${failed.join(', ')})`;
  const kept = conflicts === 0 ? '' : `; ${conflicts} conflict${conflicts === 1 ? '' : 's'} (said above)`;
  return `split ${id}: ${results.length} shards on ${where.length ? where.join(', ') : 'nowhere'}: ${passed} passed${fails} in ${secs(ms)}${kept}`;
}

/** Each shard's stdout and stderr, written in shard order: the first unfinished shard live, the rest kept until their turn. */
class OrderedOutput {
  private readonly kept: Array<Array<{ err: boolean; b: Buffer }>>;
  private readonly finished: boolean[];
  private readonly open: number[];
  private current = 0;
  private flushedAll: () => void = () => {};
  private readonly all: Promise<void>;

  constructor(
    private readonly ctx: Context,
    private readonly n: number,
  ) {
    this.kept = Array.from({ length: n }, () => []);
    this.finished = Array.from({ length: n }, () => false);
    this.open = Array.from({ length: n }, () => 2);
    this.all = new Promise((r) => (this.flushedAll = r));
  }

  attach(k: number, stdout: Readable, stderr: Readable): void {
    for (const [stream, err] of [
      [stdout, false],
      [stderr, true],
    ] as const) {
      stream.on('data', (b: Buffer) => this.push(k, err, b));
      stream.once('close', () => {
        this.open[k] = (this.open[k] ?? 1) - 1;
        this.advance();
      });
    }
  }

  line(k: number, text: string): void {
    this.push(k, true, Buffer.from(text));
  }

  end(k: number): void {
    this.finished[k] = true;
    this.advance();
  }

  done(): Promise<void> {
    return this.all;
  }

  private push(k: number, err: boolean, b: Buffer): void {
    if (k === this.current) this.write(err, b);
    else this.kept[k]?.push({ err, b });
  }

  private write(err: boolean, b: Buffer): void {
    (err ? this.ctx.stderr : this.ctx.stdout).write(b);
  }

  /** The current shard ended and its streams are drained: the next one's kept output, then it goes live. */
  private advance(): void {
    while (this.current < this.n && this.finished[this.current] && this.open[this.current] === 0) {
      this.current++;
      for (const c of this.kept[this.current] ?? []) this.write(c.err, c.b);
      if (this.current < this.n) this.kept[this.current] = [];
    }
    if (this.current >= this.n) this.flushedAll();
  }
}
