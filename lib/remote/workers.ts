// The configured workers: defaults, look-up, add and remove (config written atomically).
import { type Config, type Worker, WorkerSchema, issuesText, loadConfig, saveConfig } from '../config.js';
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

/** Adds a worker (or replaces one of the same name) and saves the config. */
export async function addWorker(c: Env, worker: Worker): Promise<{ replaced: boolean }> {
  const parsed = WorkerSchema.safeParse(worker);
  if (!parsed.success) {
    throw new SparehandError('USAGE', `invalid worker: ${issuesText(parsed.error.issues, 'worker')}`);
  }
  const config = loadConfig(c);
  const workers = config.workers ?? [];
  const at = workers.findIndex((w) => w.name === worker.name);
  const next = at >= 0 ? workers.map((w, i) => (i === at ? parsed.data : w)) : [...workers, parsed.data];
  await saveConfig(c, { ...config, workers: next });
  return { replaced: at >= 0 };
}

/** Removes a worker by name and saves the config. */
export async function removeWorker(c: Env, name: string): Promise<Worker> {
  const config = loadConfig(c);
  const w = findWorker(config, name);
  await saveConfig(c, { ...config, workers: (config.workers ?? []).filter((x) => x.name !== name) });
  return w;
}
