// `worker check`: connect, then one remote probe for bash, rsync and the platform (both remembered for runs), free
// disk; failures explained.
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { type SparehandError, isSparehandError } from '../errors.js';
import { localesInUse, missingLocales } from '../locale.js';
import { printable } from '../safe-text.js';
import { LOGIN_ENV } from './login-env.js';
import { VERSIONS, parseVersions } from './versions.js';
import { connect, connectionFor, sshEnv } from './connection.js';
import { SLOT_STATUS, type SlotRun, parseSlotStatus } from './worker-slots.js';
import { rememberWorkerRsync } from './rsync-found.js';
import { type RsyncFlavour, WORKER_RSYNC_PROBE, pickWorkerRsync, rsyncLabel, rsyncNotes } from './rsync-flavour.js';
import { remotePath } from './ssh-args.js';
import { workerDir, workerSlots } from './workers.js';
import { PLATFORM_PROBE } from './worker/parts.js';
import { rememberWorkerPlatform } from './worker-facts.js';
import { type Platform, parsePlatform, platformWords } from '../platform/platform.js';
import { differenceNote } from '../platform/difference.js';
import { platformHere } from '../platform/here.js';
import { forgetNoAnswer } from './unreachable.js';
import { type TransportInfo, captureRemote, transportInfo, workerWhere } from './transport.js';

export interface WorkerReport {
  name: string;
  destination: string;
  /** How sparehand reaches it (lib/remote/transport.ts). */
  transport: TransportInfo;
  ok: boolean;
  /** Time to get the shared connection (ms; near 0 when it was already up). */
  connectMs?: number;
  /** One round trip over the shared connection (ms). */
  latencyMs?: number;
  bash?: string | null;
  /** rsync's version (`3.2.7`), or `openrsync (protocol 29)`; null when there is none. */
  rsync?: string | null;
  /** `gnu`, `openrsync` or `unknown` (rsync-flavour.ts). */
  rsyncFlavour?: RsyncFlavour | null;
  /** The rsync sparehand uses there: `rsync` (on its PATH) or where Homebrew or MacPorts put it. */
  rsyncPath?: string | null;
  /** Perl with Digest::MD5 and Time::HiRes: the tree watch that finds what the command changed. */
  perl?: string | null;
  /** Its OS, architecture and (Linux) C library, as `linux x86_64 glibc` (lib/platform/platform.ts); null when unknown. */
  platform?: string | null;
  /** What each toolchain version command asked for printed there (first line), null when it failed. */
  versions?: Record<string, string | null>;
  /** This machine's locales (LANG, LC_*) the worker lacks (`locale -a` there), each with the variables that name it. */
  missingLocales?: Array<{ name: string; locale: string }>;
  /** Free space in the worker's --dir (bytes), null when unknown. */
  freeBytes?: number | null;
  dir: string;
  /** The worker's own slot count (its `.slots`; the config's until a run or `worker add --slots` wrote it). */
  slots: number;
  /** Slots no run holds right now, from any machine (absent when the worker could not be asked). */
  freeSlots?: number;
  /** Runs holding a slot now, from any machine. */
  busy?: SlotRun[];
  /** Problems found, each one sentence; empty when ok. */
  problems: string[];
  /** What to do about the first problem. */
  hint?: string;
  /** Things that work, but could work better (each one sentence with its fix); empty when none. */
  notes?: string[];
}

/**
 * One round trip: bash and rsync as the non-login session has them (rsync up runs there), then the owner's login
 * environment (as a run has it: lib/remote/login-env.ts) for perl and the toolchain versions asked for.
 */
const PROBE = String.raw`${LOGIN_ENV}${VERSIONS}
d=$1 status=$2 platform=$3; shift 3; mkdir -p -- "$d" 2>/dev/null
echo "bash=$BASH_VERSION"
${WORKER_RSYNC_PROBE}
echo "df=$(df -Pk -- "$d" 2>/dev/null | awk 'NR==2 {print $4}')"
login_env "$d/.login-env"
echo "locales=$(locale -a 2>/dev/null | head -n 5000 | tr '\n' ' ')"
echo "perl=$(perl -MDigest::MD5 -MTime::HiRes -e 'print $^V' 2>/dev/null)"
perl -e "$status" "$d" 2>/dev/null
perl -e "$platform" 2>/dev/null
versions "$@"
`;

/**
 * The locales the command uses here that the worker lacks: there it runs in the C locale for them (no UTF-8, other
 * sorting and formats). Unknown (no `locale -a` there, as on musl, which takes any name) counts as none missing.
 */
export function localeGaps(env: NodeJS.ProcessEnv, listed: string | null): Array<{ name: string; locale: string }> {
  const there = (listed ?? '').split(/\s+/).filter((l) => /^[A-Za-z0-9_.+@-]{1,100}$/.test(l));
  return there.length === 0 ? [] : missingLocales(localesInUse(env), there);
}

/** The note for each of them, with how to add it there. */
export function localeNotes(worker: string, gaps: ReadonlyArray<{ name: string; locale: string }>): string[] {
  return gaps.map(
    (g) =>
      `${worker} has no locale ${printable(g.locale)} (${g.name} here): commands there run in the C locale instead (other characters, sorting and formats); add it there (Debian, Ubuntu: \`sudo locale-gen ${quote([g.locale])}\`, or the package locales-all) or run with a locale it has (\`locale -a\` there)`,
  );
}

/** What follows from the worker's platform when it is not this machine's (lib/platform/difference.ts). */
function platformNote(ctx: Context, worker: Worker, there: Platform | undefined): string[] {
  const note = there ? differenceNote(worker.name, platformHere(ctx.env).platform, there) : undefined;
  return note ? [note] : [];
}

/** The report of a pool whose pods could not be listed, or that has none running (lib/remote/pools.ts). */
export function poolFailure(ctx: Context, pool: Worker, e: SparehandError): WorkerReport {
  const transport = transportInfo(ctx, pool, { controlPath: 'none' });
  return {
    name: pool.name,
    destination: workerWhere(pool),
    transport,
    dir: workerDir(pool),
    slots: workerSlots(pool),
    ok: false,
    problems: [e.message],
    ...(e.hint ? { hint: e.hint } : {}),
  };
}

/** Checks one worker; never throws for the worker's own problems (they are in `problems`). */
export async function checkWorker(ctx: Context, worker: Worker, opts: { versions?: readonly string[] } = {}): Promise<WorkerReport> {
  const base = {
    name: worker.name,
    destination: workerWhere(worker),
    transport: transportInfo(ctx, worker, connectionFor(ctx, worker)),
    dir: workerDir(worker),
    slots: workerSlots(worker),
  };
  const conn = connectionFor(ctx, worker);
  let connectMs: number;
  try {
    connectMs = await connect(ctx, worker, conn, { verify: true });
    // It answers: runs ask it again (a "no answer" remembered a moment ago is forgotten).
    forgetNoAnswer(ctx, worker);
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return { ...base, ok: false, problems: [e.message], ...(e.hint ? { hint: e.hint } : {}) };
  }
  const t = performance.now();
  await captureRemote(sshEnv(ctx), worker, conn, 'true');
  const latencyMs = performance.now() - t;
  const r = await captureRemote(
    sshEnv(ctx),
    worker,
    conn,
    quote(['bash', '-c', PROBE, 'probe', remotePath(base.dir), SLOT_STATUS, PLATFORM_PROBE, ...(opts.versions ?? [])]),
  );
  const slots = parseSlotStatus(r.stdout);
  const versions = parseVersions(r.stdout);
  const field = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(r.stdout)?.[1]?.trim() || null;
  const bash = field('bash');
  const found = pickWorkerRsync(r.stdout);
  await rememberWorkerRsync(ctx, worker, found);
  const rsync = found ? (found.flavour === 'gnu' ? found.version : rsyncLabel(found)) : null;
  const perl = field('perl');
  const platform = parsePlatform(field('platform') ?? '');
  if (platform) await rememberWorkerPlatform(ctx, worker, platform);
  const kb = field('df');
  const gaps = localeGaps(ctx.env, field('locales'));
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
  // No slot count on the worker yet (no run there): the config's, all free.
  const free = slots ? (slots.slots ? slots.slots - slots.busy.length : base.slots) : undefined;
  return {
    ...base,
    ...(slots?.slots ? { slots: slots.slots } : {}),
    ...(free === undefined ? {} : { freeSlots: free, busy: slots?.busy ?? [] }),
    ok: problems.length === 0,
    connectMs: Math.round(connectMs),
    latencyMs: Math.round(latencyMs),
    bash,
    rsync,
    rsyncFlavour: found?.flavour ?? null,
    rsyncPath: found?.path ?? null,
    perl,
    platform: platform ? platformWords(platform) : null,
    ...(opts.versions?.length ? { versions } : {}),
    freeBytes: kb ? Number(kb) * 1024 : null,
    ...(gaps.length ? { missingLocales: gaps } : {}),
    problems,
    ...(hint ? { hint } : {}),
    notes: [...(found ? rsyncNotes(found, 'on the worker') : []), ...platformNote(ctx, worker, platform), ...localeNotes(worker.name, gaps)],
  };
}
