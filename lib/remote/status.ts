// What runs on a worker now, from any machine: its slots and who holds each (the worker's own records).
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { isSparehandError } from '../errors.js';
import { connect, connectionFor, sshEnv } from './connection.js';
import { remotePath } from './ssh-args.js';
import { type TransportInfo, captureRemote, transportInfo, workerWhere } from './transport.js';
import { SLOT_STATUS, type SlotRun, parseSlotStatus } from './worker-slots.js';
import { workerDir, workerSlots } from './workers.js';
import { knownWorkerPlatform } from './worker-facts.js';
import { platformWords } from '../platform/platform.js';
import { REMEMBER_MS, rememberedNoAnswer } from './unreachable.js';

export interface WorkerStatus {
  name: string;
  destination: string;
  /** How sparehand reaches it (lib/remote/transport.ts). */
  transport: TransportInfo;
  reachable: boolean;
  /** Its platform as last seen (`linux x86_64 glibc`: lib/remote/worker-facts.ts), when known. */
  platform?: string;
  /** Why it could not be asked. */
  problem?: string;
  slots: number;
  free: number;
  /** Busy slots: who, what, since when (seconds running, by the worker's clock). */
  runs: Array<SlotRun & { seconds: number }>;
}

/** A pool whose pods could not be listed, or that has none running, as `status` shows it. */
export function poolStatus(ctx: Pick<Context, 'env'>, pool: Worker, problem: string): WorkerStatus {
  return {
    name: pool.name,
    destination: workerWhere(pool),
    transport: transportInfo(ctx, pool, { controlPath: 'none' }),
    reachable: false,
    problem,
    slots: workerSlots(pool),
    free: 0,
    runs: [],
  };
}

/** Asks one worker (a few ms over a shared connection); `setSlots` first writes its slot count (`worker add`). */
export async function workerStatus(ctx: Context, worker: Worker, setSlots?: number): Promise<WorkerStatus> {
  const seen = knownWorkerPlatform(ctx, worker);
  const base = {
    name: worker.name,
    destination: workerWhere(worker),
    transport: transportInfo(ctx, worker, connectionFor(ctx, worker)),
    ...(seen ? { platform: platformWords(seen) } : {}),
  };
  // One that did not answer a moment ago is shown as such, without waiting for it again (unreachable.ts).
  const silent = setSlots === undefined ? rememberedNoAnswer(ctx, worker) : undefined;
  if (silent) {
    const ago = Math.round((Date.now() - silent.at) / 1000);
    return {
      ...base,
      reachable: false,
      problem: `${silent.why} ${ago}s ago; runs skip it for ${Math.ceil((REMEMBER_MS - (Date.now() - silent.at)) / 1000)}s more (\`sparehand worker check ${worker.name}\` asks it now)`,
      slots: workerSlots(worker),
      free: 0,
      runs: [],
    };
  }
  try {
    await connect(ctx, worker);
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return { ...base, reachable: false, problem: e.message, slots: workerSlots(worker), free: 0, runs: [] };
  }
  const args = ['perl', '-e', SLOT_STATUS, remotePath(workerDir(worker)), ...(setSlots ? [String(setSlots)] : [])];
  const r = await captureRemote(sshEnv(ctx), worker, connectionFor(ctx, worker), quote(args));
  const s = parseSlotStatus(r.stdout);
  if (!s)
    return {
      ...base,
      reachable: false,
      problem: `could not read its slots (perl there? ${r.stderr.trim().split('\n')[0] ?? ''})`,
      slots: workerSlots(worker),
      free: 0,
      runs: [],
    };
  // No run there yet: the config's count, all free.
  const slots = s.slots || workerSlots(worker);
  return { ...base, reachable: true, slots, free: slots - s.busy.length, runs: s.busy.map((b) => ({ ...b, seconds: Math.max(0, s.now - b.started) })) };
}
