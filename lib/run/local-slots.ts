// This machine's local slots: heavy commands that run here take one first, so that several agents' test suites
// never all run at once. One queue, first come first served, shared by every agent and terminal of this user
// (the state folder's `local-slots/`); the locks are held by a Perl child (local-slots-pl.ts) that the kernel
// unlocks the moment sparehand ends, however it ends.
import type { ChildProcess } from 'node:child_process';
import { availableParallelism, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { capture, start as startProgram } from '../process.js';
import { stateDir } from '../paths.js';
import { type Said, ownFolder } from '../state/own-file.js';
import { PEEK_PL, TAKE_PL } from './local-slots-pl.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

const GiB = 1024 ** 3;

/** How many runs may run here at once (0: no queue), and why that many. */
export interface SlotCount {
  count: number;
  why: string;
}

/** `local.slots`, or what fits the machine: half its cores, at most one per 4 GiB of memory, at least one. */
export function localSlotCount(config: Config, machine = { cores: availableParallelism(), memory: totalmem() }): SlotCount {
  const set = config.local?.slots;
  if (set === 0) return { count: 0, why: 'local.slots is 0 in the config: runs here start at once, never queued' };
  if (set !== undefined) return { count: set, why: 'local.slots in the config' };
  const byCores = Math.floor(machine.cores / 2);
  const byMemory = Math.floor(machine.memory / GiB / 4);
  const count = Math.max(1, Math.min(byCores, byMemory));
  return {
    count,
    why: `${machine.cores} core${machine.cores === 1 ? '' : 's'} / 2 = ${byCores}, ${(machine.memory / GiB).toFixed(1)} GiB memory / 4 = ${byMemory}, at least 1; local.slots in the config sets it`,
  };
}

export const slotsDir = (c: Env): string => join(stateDir(c), 'local-slots');

/** Who holds a slot or waits for one (what status shows). */
export interface SlotRun {
  pid: number;
  /** ISO time it started waiting (or took the slot). */
  since: string;
  project: string;
  command: string;
}

export type TurnState =
  | { kind: 'new' }
  | { kind: 'waiting'; ahead: number; workers: ReadonlySet<string> }
  | { kind: 'held'; slot: number }
  /** The slots cannot be used here (no perl, the state folder cannot be written): the run goes at once. */
  | { kind: 'failed'; why: string };

/**
 * One run's place in the local queue. `join` takes a ticket (once) naming the workers the run also waits for;
 * `settled` resolves when a slot is held or the queue cannot be used; `release` gives back the ticket or slot.
 */
export class LocalTurn {
  state: TurnState = { kind: 'new' };
  settled: Promise<void>;
  /** Whether the run already said it waits (one line per run). */
  announced = false;
  private settle!: () => void;
  private joinedAt: number | undefined;
  private heldAt: number | undefined;
  private waiters: Array<() => void> = [];
  private child: ChildProcess | undefined;
  private told: Promise<void> | undefined;

  constructor(
    private readonly ctx: Env,
    readonly count: number,
    private readonly run: SlotRun,
  ) {
    this.settled = new Promise((r) => (this.settle = r));
  }

  /**
   * Joins the queue, waiting for `workers` too (and, unless `here` is false, for a slot here); resolves once the
   * run knows where it stands.
   */
  join(workers: readonly string[], here = true): Promise<void> {
    this.joinedAt ??= Date.now();
    this.told ??= this.start(workers, here);
    return this.told;
  }

  /** Resolves at the next change of where the run stands (one ahead of it left, a slot held, the queue failed). */
  changed(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  /** The slot held, if one is. */
  get slot(): number | undefined {
    return this.state.kind === 'held' ? this.state.slot : undefined;
  }

  /** Gives back the ticket or the slot; the run may join again later (a worker that took it failed after all). */
  release(): void {
    // Closing its stdin ends the helper: the kernel drops its locks.
    this.child?.stdin?.end();
    this.child = undefined;
    this.told = undefined;
    this.joinedAt = undefined;
    this.heldAt = undefined;
    this.state = { kind: 'new' };
    this.wake();
    this.settle();
    this.settled = new Promise((r) => (this.settle = r));
  }

  /** How long the run has waited in the queue (until its slot, or now). */
  waitedMs(now = Date.now()): number {
    return this.joinedAt === undefined ? 0 : (this.heldAt ?? now) - this.joinedAt;
  }

  private start(workers: readonly string[], here: boolean): Promise<void> {
    const dir = slotsDir(this.ctx);
    // The state folder private and this user's (the slot keeper checks local-slots/ and what is in it).
    if (!ownFolder(this.ctx, dirname(dir), { make: true })) {
      this.fail(`${dirname(dir)} cannot be written, or is not a private folder of this user's`);
      return Promise.resolve();
    }
    const info = JSON.stringify(this.run);
    const child = startProgram('perl', ['-e', TAKE_PL, dir, String(this.count), workers.length ? workers.join(',') : '-', info, here ? '1' : '0'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: this.ctx.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    });
    this.child = child;
    let err = '';
    let out = '';
    // What a helper given back (release) still says is not this run's any more.
    const mine = () => this.child === child;
    return new Promise<void>((told) => {
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout!.on('data', (d: Buffer) => {
        if (!mine()) return;
        out += d.toString();
        for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
          const text = out.slice(0, nl);
          out = out.slice(nl + 1);
          if (text.startsWith('unsafe ')) this.unsafe(dir, text.slice('unsafe '.length));
          else {
            this.line(text);
            told();
          }
        }
      });
      child.once('error', (e) => {
        if (mine()) this.fail(`perl cannot be started (${e.message})`);
        told();
      });
      child.once('close', () => {
        if (mine()) this.fail(err.trim().split('\n')[0] || 'the slot keeper ended');
        told();
      });
      // The helper keeps sparehand alive until the slot is held (line, unrefAll): a held slot ends with us. Not
      // before: a helper that dies at once (it cannot make its folder) closes its stdout before its exit is seen,
      // and with nothing else holding the event loop node would end there, silently, with status 0.
    });
  }

  private line(text: string): void {
    const [what, a, b] = text.split(' ');
    if (this.state.kind !== 'new' && this.state.kind !== 'waiting') return;
    this.wake();
    if (what === 'ahead') this.state = { kind: 'waiting', ahead: Number(a), workers: new Set(b === '-' || !b ? [] : b.split(',')) };
    else if (what === 'slot') {
      this.state = { kind: 'held', slot: Number(a) };
      this.heldAt = Date.now();
      if (this.child) unrefAll(this.child);
      this.settle();
    }
  }

  /** `<name> <why>`: a file in the slots' folder that the keeper passed over (and took the name of away). */
  private unsafe(dir: string, text: string): void {
    const sp = text.indexOf(' ');
    const name = text.slice(0, sp);
    this.ctx.stderr?.write(`sparehand: ignored ${name.startsWith('/') ? name : join(dir, name)}: ${text.slice(sp + 1)}\n`);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private fail(why: string): void {
    this.wake();
    this.state = { kind: 'failed', why };
    this.child = undefined;
    this.settle();
  }
}

/** Lets sparehand end while the helper holds its slot: the kernel unlocks it when sparehand is gone. */
function unrefAll(child: ChildProcess): void {
  child.unref();
  for (const s of [child.stdin, child.stdout, child.stderr] as Array<{ unref?: () => void } | null>) s?.unref?.();
}

/** Who holds each local slot and who waits, oldest first (read without taking any); undefined when perl cannot tell. */
export async function peekSlots(
  c: Env,
  count: number,
): Promise<{ held: Array<SlotRun & { slot: number }>; waiting: Array<SlotRun & { here: boolean }> } | undefined> {
  if (count === 0) return { held: [], waiting: [] };
  let r: Awaited<ReturnType<typeof capture>>;
  try {
    r = await capture('perl', ['-e', PEEK_PL, slotsDir(c), String(count)], { env: { PATH: c.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } });
  } catch {
    return undefined;
  }
  if (r.code !== 0) return undefined;
  const held: Array<SlotRun & { slot: number }> = [];
  const waiting: Array<SlotRun & { here: boolean }> = [];
  for (const line of r.stdout.split('\n')) {
    // `held <n> <run>`, `wait <ticket> <here> <workers> <run>`: the run is the rest of the line.
    const words = line.split(' ');
    const kind = words[0];
    const run = parseRun(words.slice(kind === 'held' ? 2 : 4).join(' '));
    if (!run) continue;
    if (kind === 'held') held.push({ ...run, slot: Number(words[1]) });
    else if (kind === 'wait') waiting.push({ ...run, here: words[2] !== '0' });
  }
  return { held, waiting };
}

/** A run as a ticket or slot file names it (written by sparehand, but read as any file: checked). */
function parseRun(text: string): SlotRun | undefined {
  try {
    const v = JSON.parse(text) as Partial<SlotRun>;
    if (typeof v.pid !== 'number' || typeof v.since !== 'string' || typeof v.project !== 'string' || typeof v.command !== 'string') return undefined;
    return { pid: v.pid, since: v.since, project: v.project, command: v.command };
  } catch {
    return undefined;
  }
}
