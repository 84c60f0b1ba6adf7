// Slot locks: one lock file per (worker, slot) on this machine, created atomically (link), holding the owner's pid.
// A crashed run leaves its file behind; the next run sees the pid is gone and takes the slot over.
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { workerSlots } from './workers.js';

type Env = Pick<Context, 'home' | 'env'>;

export interface SlotLock {
  worker: Worker;
  slot: number;
  release: () => void;
}

const lockDir = (c: Env): string => join(stateDir(c), 'slots');
const lockFile = (c: Env, worker: string, slot: number): string => join(lockDir(c), `${worker}.${slot}.lock`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file, when the lock is held by a live process on this machine. */
function holder(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const [pid, host] = text.split('\n');
  const n = Number(pid);
  if (host !== hostname() || !Number.isInteger(n) || n <= 0) return n > 0 ? n : undefined;
  return alive(n) ? n : undefined;
}

/** Takes one slot lock, or returns undefined when it is held by a live run. */
export function tryLock(c: Env, worker: Worker, slot: number): SlotLock | undefined {
  mkdirSync(lockDir(c), { recursive: true });
  const path = lockFile(c, worker.name, slot);
  for (let attempt = 0; attempt < 3; attempt++) {
    // Written in full to a private file, then linked into place: the lock never exists without its pid
    // (an empty lock file read by another run would look stale and be taken over).
    const mine = `${path}.${process.pid}.${attempt}`;
    writeFileSync(mine, `${process.pid}\n${hostname()}\n${new Date().toISOString()}\n`, { mode: 0o600 });
    let won = false;
    try {
      linkSync(mine, path);
      won = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(mine);
    }
    if (won) {
      let released = false;
      return {
        worker,
        slot,
        release: () => {
          if (released) return;
          released = true;
          try {
            if (Number(readFileSync(path, 'utf8').split('\n')[0]) === process.pid) unlinkSync(path);
          } catch {
            /* already gone */
          }
        },
      };
    }
    const before = safeRead(path);
    if (before === undefined) continue;
    if (holder(path) !== undefined) return undefined;
    // Stale: move it aside, and only drop it if it is still the stale file we judged (another run may have won).
    const aside = `${path}.stale.${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue;
    }
    if (safeRead(aside) === before) unlinkSync(aside);
    else renameSync(aside, path);
  }
  return undefined;
}

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** How many of a worker's slots are free right now (on this machine). */
export function freeSlots(c: Env, worker: Worker): number {
  let free = 0;
  for (let s = 0; s < workerSlots(worker); s++) if (holder(lockFile(c, worker.name, s)) === undefined) free++;
  return free;
}

/** A free slot on the least busy worker (most free slots; config order breaks ties): runs are spread out. */
export function lockAny(c: Env, workers: readonly Worker[]): SlotLock | undefined {
  const byLoad = workers
    .map((w, i) => ({ w, i, free: freeSlots(c, w) }))
    .filter((x) => x.free > 0)
    .sort((a, b) => b.free - a.free || a.i - b.i);
  for (const { w } of byLoad) {
    for (let s = 0; s < workerSlots(w); s++) {
      const lock = tryLock(c, w, s);
      if (lock) return lock;
    }
  }
  return undefined;
}
