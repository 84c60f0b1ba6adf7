// This machine's runs in progress, per worker: only a hint for spreading runs over the workers (the one where
// this machine runs least is asked first). The worker itself counts its slots (lib/remote/worker-slots.ts), so a
// file left by a run that crashed, or by another machine sharing this home, never makes anyone wait.
import { readdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { processAlive } from '../pid.js';
import { type Said, writeOwnFile } from '../state/own-file.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

const dir = (c: Env) => join(stateDir(c), 'runs');
/**
 * Records this process's run on `worker`; returns the function that removes the record. Only a hint: where the state
 * folder cannot be written (a sandbox), the run goes unrecorded.
 */
export function recordRun(c: Env, worker: Worker): () => void {
  const file = join(dir(c), `${worker.name}.${hostname()}.${process.pid}`);
  // Made anew, never through a link planted under that name.
  if (!writeOwnFile(c, file, '')) return () => {};
  return () => rmSync(file, { force: true });
}

/** How many runs of this machine on each worker are in progress (by their live processes). */
function runCounter(c: Env): (w: Worker) => number {
  let names: string[] = [];
  try {
    names = readdirSync(dir(c));
  } catch {
    /* none yet */
  }
  const here = hostname();
  return (w: Worker) =>
    names.filter((n) => {
      const rest = n.startsWith(`${w.name}.`) ? n.slice(w.name.length + 1) : undefined;
      if (rest === undefined) return false;
      const at = rest.lastIndexOf('.');
      return rest.slice(0, at) === here && processAlive(Number(rest.slice(at + 1)));
    }).length;
}

/** This machine's runs in progress on `worker`. */
export const runsOn = (c: Env, worker: Worker): number => runCounter(c)(worker);

/** The workers, those where this machine has fewest runs first (config order breaks ties). */
export function leastBusyFirst(c: Env, workers: readonly Worker[]): Worker[] {
  const count = runCounter(c);
  return workers
    .map((w, i) => ({ w, i, n: count(w) }))
    .sort((a, b) => a.n - b.n || a.i - b.i)
    .map((x) => x.w);
}
