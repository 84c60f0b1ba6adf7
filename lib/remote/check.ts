// `worker check`: connect, then one remote probe for bash, rsync, free disk; failures explained.
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { isSparehandError } from '../errors.js';
import { capture } from '../process.js';
import { connect, connectionFor, sshEnv } from './connection.js';
import { freeSlots } from './slots.js';
import { remotePath, sshArgs } from './ssh-args.js';
import { workerDir, workerSlots } from './workers.js';

export interface WorkerReport {
  name: string;
  destination: string;
  ok: boolean;
  /** Time to get the shared connection (ms; near 0 when it was already up). */
  connectMs?: number;
  /** One round trip over the shared connection (ms). */
  latencyMs?: number;
  bash?: string | null;
  rsync?: string | null;
  /** Perl with Digest::MD5 and Time::HiRes: the tree watch that finds what the command changed. */
  perl?: string | null;
  /** Free space in the worker's --dir (bytes), null when unknown. */
  freeBytes?: number | null;
  dir: string;
  slots: number;
  freeSlots: number;
  /** Problems found, each one sentence; empty when ok. */
  problems: string[];
  /** What to do about the first problem. */
  hint?: string;
}

const PROBE = String.raw`
d=$1; mkdir -p -- "$d" 2>/dev/null
echo "bash=$BASH_VERSION"
echo "rsync=$(rsync --version 2>/dev/null | head -n 1)"
echo "perl=$(perl -MDigest::MD5 -MTime::HiRes -e 'print $^V' 2>/dev/null)"
echo "df=$(df -Pk -- "$d" 2>/dev/null | awk 'NR==2 {print $4}')"
`;

/** Checks one worker; never throws for the worker's own problems (they are in `problems`). */
export async function checkWorker(ctx: Context, worker: Worker): Promise<WorkerReport> {
  const base = {
    name: worker.name,
    destination: worker.destination,
    dir: workerDir(worker),
    slots: workerSlots(worker),
    freeSlots: freeSlots(ctx, worker),
  };
  const conn = connectionFor(ctx, worker);
  let connectMs: number;
  try {
    connectMs = await connect(ctx, worker, conn, { verify: true });
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return { ...base, ok: false, problems: [e.message], ...(e.hint ? { hint: e.hint } : {}) };
  }
  const t = performance.now();
  await capture('ssh', sshArgs(worker, conn, 'true'), { env: sshEnv(ctx) });
  const latencyMs = performance.now() - t;
  const r = await capture('ssh', sshArgs(worker, conn, quote(['bash', '-c', PROBE, 'probe', remotePath(base.dir)])), { env: sshEnv(ctx) });
  const field = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(r.stdout)?.[1]?.trim() || null;
  const bash = field('bash');
  const rsync = field('rsync')?.replace(/^rsync\s+version\s+/, '').replace(/\s+protocol.*$/, '') ?? null;
  const perl = field('perl');
  const kb = field('df');
  const problems: string[] = [];
  let hint: string | undefined;
  if (!bash) {
    problems.push('bash not found on the worker');
    hint = 'install bash on the worker';
  }
  if (!rsync) {
    problems.push('rsync not found on the worker');
    hint ??= 'install rsync on the worker (e.g. `apt-get install rsync`)';
  }
  if (!perl) {
    problems.push('perl with Digest::MD5 and Time::HiRes not found on the worker (sparehand needs it to find what a command changed)');
    hint ??= 'install perl on the worker (e.g. `apt-get install perl`)';
  }
  return {
    ...base,
    ok: problems.length === 0,
    connectMs: Math.round(connectMs),
    latencyMs: Math.round(latencyMs),
    bash,
    rsync,
    perl,
    freeBytes: kb ? Number(kb) * 1024 : null,
    problems,
    ...(hint ? { hint } : {}),
  };
}
