// Runs the hook's own code where there is no node: a tool's mod whose world is only what the tool lends it, each
// call a hop to another thread. In that bundle (scripts/build.js) node:fs, node:path, node:url, `process` and
// `Buffer` are stand-ins (./read-ahead/) served from what was read ahead. A read they could not serve is noted; once
// everything noted is read (all at once, through the lender), the code runs again, until it asks for nothing new. What
// it wrote in its last run is then written through the lender. What a kind of run read is read ahead the next time.
// Run unbundled (node's own fs), the code reads for itself and runs once.
import type { StepRunner } from './in-process.js';
import { type Entry, type Machine, type StatInfo, type What, world } from './read-ahead/world.js';

export type { Machine, StatInfo };

/** What the tool lends for a read or a write (a mod's `$.fs`); a failed read throws with its error code in it. */
export interface Lender {
  read(path: string): Promise<string>;
  /** The first `length` bytes of a file. */
  bytes(path: string, length: number): Promise<Uint8Array>;
  stat(path: string, follow: boolean): Promise<StatInfo>;
  list(path: string): Promise<string[]>;
  /** Writes the whole file (its folders made as needed). */
  write(path: string, text: string): Promise<void>;
}

/** Runs of one step before it is given up (each reads what the one before asked for: a chain of reads that each name
 * the next, as the walk up the processes' parents, takes one run a link, the first time). */
const MAX_RUNS = 24;
/** The bytes of a program that say which C library it was linked with (lib/platform/here.ts reads 4 KB). */
const HEAD = 4096;

/** What each kind of run read last time: read ahead, all at once, before it runs again. */
const before = new Map<string, Set<string>>();
/** Set when `before` changed since it was last kept (remembered()). */
let changed = false;

/** What the runs read last time, to keep between sessions (kind → reads); undefined when nothing changed since. */
export function remembered(): Record<string, string[]> | undefined {
  if (!changed) return undefined;
  changed = false;
  return Object.fromEntries([...before].map(([kind, reads]) => [kind, [...reads]]));
}

/** What an earlier session's runs read (as remembered() gave it): read ahead by the first runs of this one. */
export function recall(kept: unknown): void {
  if (typeof kept !== 'object' || kept === null) return;
  for (const [kind, reads] of Object.entries(kept)) {
    if (!before.has(kind) && Array.isArray(reads)) before.set(kind, new Set(reads.filter((r): r is string => typeof r === 'string')));
  }
}

/** The error code in a failed read's message (`… failed: ENOENT`); EIO when it names none. */
const codeOf = (e: unknown): string => /\b(E[A-Z]{2,})\b(?!.*\bE[A-Z]{2,}\b)/.exec(String((e as Error)?.message ?? e))?.[1] ?? 'EIO';

async function fetchOne(lender: Lender, what: What, path: string): Promise<Entry[What]> {
  try {
    if (what === 'text') return { value: await lender.read(path) };
    if (what === 'bytes') return { value: await lender.bytes(path, HEAD) };
    if (what === 'list') return { value: await lender.list(path) };
    return { value: await lender.stat(path, what === 'stat') };
  } catch (e) {
    return { error: codeOf(e) };
  }
}

/** A reader for one call: its reads are shared by its runs, and made fresh for each call. */
export function reader(lender: Lender, machine: Machine, ctx: { env: NodeJS.ProcessEnv; cwd: string }) {
  const known = new Map<string, Entry>();
  const fetched = new Set<string>();
  const fetch = async (keys: Iterable<string>): Promise<void> => {
    const todo = [...keys].filter((k) => !fetched.has(k));
    for (const k of todo) fetched.add(k);
    const got = await Promise.all(
      todo.map(async (k) => {
        const [what, path] = k.split('\0') as [What, string];
        return [what, path, await fetchOne(lender, what, path)] as const;
      }),
    );
    for (const [what, path, value] of got) known.set(path, { ...known.get(path), [what]: value });
  };
  const begin = (): void => {
    Object.assign(world, { known, env: ctx.env, cwd: ctx.cwd, machine });
    for (const set of [world.asked, world.missed, world.dirs]) set.clear();
    world.written.clear();
    world.appended.clear();
  };
  const flush = async (): Promise<void> => {
    if (world.written.size === 0 && world.appended.size === 0) return;
    const writes = [...world.written].filter((w): w is [string, string] => w[1] !== null);
    const appends = [...world.appended];
    await Promise.all([
      ...writes.map(([path, text]) => lender.write(path, text).catch(() => undefined)),
      ...appends.map(async ([path, text]) => {
        const was = await lender.read(path).catch(() => '');
        await lender.write(path, was + text).catch(() => undefined);
      }),
    ]);
  };
  return {
    /** Runs `code` until it reads nothing new (at most MAX_RUNS times); writes what its last run wrote. */
    run: (async <T>(kind: string, code: () => T | Promise<T>): Promise<T> => {
      let ahead: Iterable<string> = before.get(kind) ?? [];
      for (let n = 1; n <= MAX_RUNS; n++) {
        await fetch(ahead);
        begin();
        const value = await code();
        if (world.missed.size === 0) {
          const last = before.get(kind);
          if (last === undefined || last.size !== world.asked.size || [...world.asked].some((k) => !last.has(k))) changed = true;
          before.set(kind, new Set(world.asked));
          await flush();
          return value;
        }
        ahead = [...world.missed];
      }
      throw new Error(`read ahead: still reading new files after ${MAX_RUNS} runs (${[...world.missed].slice(0, 3).join(', ').replaceAll('\0', ' ')})`);
    }) satisfies StepRunner,
  };
}
