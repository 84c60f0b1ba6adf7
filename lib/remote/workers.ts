// The configured workers: defaults, look-up, add and remove (config written atomically).
import { type Config, type Worker, WorkerSchema, issuesText, updateConfig } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';

type Env = Pick<Context, 'home' | 'env'>;

export const DEFAULT_DIR = '~/.cache/sparehand/work';
export const DEFAULT_SLOTS = 2;

export const workerDir = (w: Worker): string => w.dir ?? DEFAULT_DIR;
export const workerSlots = (w: Worker): number => w.slots ?? DEFAULT_SLOTS;

/** The worker called `name`, or an error listing the ones there are. */
export function findWorker(config: Config, name: string): Worker {
  const w = (config.workers ?? []).find((x) => x.name === name);
  if (w) return w;
  const names = (config.workers ?? []).map((x) => x.name);
  throw new SparehandError('NOT_FOUND', `no worker named "${name}"`, {
    hint: names.length ? `configured workers: ${names.join(', ')}` : 'add one with `sparehand worker add NAME user@host`',
  });
}

const workersOf = (raw: Record<string, unknown>): Record<string, unknown>[] => (Array.isArray(raw.workers) ? raw.workers : []);

/** Adds a worker (or replaces one of the same name; fields sparehand does not know stay) and saves the config. */
export async function addWorker(c: Env, worker: Worker): Promise<{ replaced: boolean }> {
  const parsed = WorkerSchema.safeParse(worker);
  if (!parsed.success) {
    throw new SparehandError('USAGE', `invalid worker: ${issuesText(parsed.error.issues, 'worker', worker)}`);
  }
  let replaced = false;
  await updateConfig(c, (raw) => {
    const workers = workersOf(raw);
    const at = workers.findIndex((w) => w.name === worker.name);
    replaced = at >= 0;
    const known = Object.keys(WorkerSchema.shape);
    const kept = (w: Record<string, unknown>) => Object.fromEntries(Object.entries(w).filter(([k]) => !known.includes(k)));
    return { ...raw, workers: replaced ? workers.map((w, i) => (i === at ? { ...parsed.data, ...kept(w) } : w)) : [...workers, parsed.data] };
  });
  return { replaced };
}

/** Removes a worker by name and saves the config. */
export async function removeWorker(c: Env, name: string): Promise<Worker> {
  let removed: Worker | undefined;
  await updateConfig(c, (raw, config) => {
    removed = findWorker(config, name);
    return { ...raw, workers: workersOf(raw).filter((w) => w.name !== name) };
  });
  return removed!;
}
