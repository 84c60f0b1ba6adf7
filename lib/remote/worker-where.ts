// How a message names where a worker is (its ssh destination, exec command or pods), apart from the transport: the
// hook reads the workers' platforms by it (worker-facts.ts) and must not load the transport and what it loads.
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';

/** Where a worker is, as a message names it: its ssh destination, its pods, or its exec command. */
export function workerWhere(worker: Pick<Worker, 'destination' | 'exec' | 'kubernetes'>): string {
  const k = worker.kubernetes;
  return worker.destination ?? (k ? `pods -l ${k.selector} in ${k.namespace}` : quote(worker.exec ?? []));
}
