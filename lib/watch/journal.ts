// What changed in the project since a point in the watcher's journal (lib/watch/watcher.pl's header describes both),
// and the watcher started when there is none to ask: on Linux the Perl one (inotify), on a Mac the Node one
// (FSEvents through the optional `fsevents` package, fsevents-watcher.ts); both write the same journal. A warm run asks before it takes its fingerprint
// (lib/send/warm-send.ts): the answer is trusted only when the same watcher has watched everything since that
// point, said nothing was lost, and has seen the barrier written just now; anything else is no answer, and the
// run looks at every file as before.
import { randomBytes, createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../package-files.js';
import { processAlive } from '../pid.js';
import { platformHere } from '../platform/here.js';
import { outputOfSync, start } from '../process.js';
import { sandboxHere } from '../sandbox/here.js';
import { ownFolder } from '../state/own-folder.js';
import { WATCHER_PL } from './watcher-pl.js';

/** A point in one watcher's journal. */
export interface WatchMark {
  id: string;
  offset: number;
}

/** What the journal says changed between a mark and now. */
export interface Changes {
  /** Now, in the journal: the mark the next run asks from. */
  mark: WatchMark;
  /** Paths whose content or attributes changed (`''`: the project folder itself). */
  changed: Set<string>;
  /** Paths made, deleted or moved (a folder's listing changed). */
  moved: Set<string>;
  /** The hash of the folders this watcher does not watch (skipHash). */
  skip: string;
}

interface Header {
  id: string;
  pid: number;
  skip: string;
  /** Where the records start. */
  start: number;
}

const JOURNAL = (root: string) => join(root, '.sparehand', 'watch', 'journal');
/** How long a barrier may take before the watcher is taken for dead (a loaded machine: the answer is a walk). */
const BARRIER_MS = 500;
/** A watcher that has not written its header this long after it was started never will. */
const STARTING_MS = 10_000;

/** The hash of the folders a watcher is told not to watch. */
export const skipHash = (skip: readonly string[]): string =>
  createHash('sha256')
    .update([...skip].sort().join('\0'))
    .digest('hex')
    .slice(0, 16);

/**
 * Which watcher runs on this machine (what sparehand believes it to be: SPAREHAND_PLATFORM_HERE, lib/platform/here.ts,
 * is how a test makes this Linux machine play a Mac): the Perl one where perl reaches inotify through `syscall()`,
 * the FSEvents one on a Mac, none elsewhere.
 */
export function watcherHere(env: NodeJS.ProcessEnv): 'inotify' | 'fsevents' | undefined {
  const { os, arch } = platformHere(env).platform;
  if (os === 'linux' && (arch === 'x86_64' || arch === 'arm64')) return 'inotify';
  return os === 'darwin' ? 'fsevents' : undefined;
}

/** Whether a watcher can run here at all, and is not turned off (SPAREHAND_WATCH=off, docs/environment.md). */
export const canWatch = (env: NodeJS.ProcessEnv): boolean => env.SPAREHAND_WATCH !== 'off' && watcherHere(env) !== undefined;

/** The module the FSEvents watcher loads: `fsevents` from sparehand's own node_modules, or a stand-in's path (tests). */
const fseventsModule = (env: NodeJS.ProcessEnv): string => env.SPAREHAND_FSEVENTS_MODULE || 'fsevents';

/** The journal's bytes from `from` on, at most `max` (undefined: no journal). */
function readFrom(root: string, from: number, max = Number.POSITIVE_INFINITY): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(JOURNAL(root), 'r');
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let at = from;
    while (at - from < max) {
      const b = Buffer.allocUnsafe(Math.min(1 << 20, max - (at - from)));
      const n = readSync(fd, b, 0, b.length, at);
      if (n <= 0) break;
      chunks.push(b.subarray(0, n));
      at += n;
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

function header(root: string): Header | undefined {
  const head = readFrom(root, 0, 512);
  const nl = head?.indexOf(10) ?? -1;
  if (!head || nl < 0) return undefined;
  const m = /^sparehand-watch 1 (\S+) (\d+) (\S+)$/.exec(head.subarray(0, nl).toString('utf8'));
  return m ? { id: m[1] as string, pid: Number(m[2]), skip: m[3] as string, start: nl + 1 } : undefined;
}

/**
 * Whether `pid` is a watcher still running (not another process that has its pid now, nor one that has ended): its
 * name, from /proc, or from `ps` where there is none (a Mac).
 */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('sparehand-watch ');
  } catch {
    if (existsSync('/proc/self')) return false;
  }
  try {
    return outputOfSync('/bin/ps', ['-o', 'command=', '-p', String(pid)], { env: { LC_ALL: 'C' }, timeoutMs: 2000 }).startsWith('sparehand-watch ');
  } catch {
    return false;
  }
}

/** The watcher now running for `root` (when `skip` is given: one that watches with it): its header. */
function liveWatcher(root: string, skip?: string): Header | undefined {
  const h = header(root);
  if (!h || (skip !== undefined && h.skip !== skip) || !alive(h.pid)) return undefined;
  return h;
}

/**
 * What changed since `mark` (or, with none, since now: an empty answer whose mark a fingerprint taken after it may
 * keep), once the watcher has seen a barrier written now; undefined when the watcher cannot vouch for it (none, another
 * one, it lost track, it did not answer in time). What it does not watch is in the answer's `skip`.
 */
export async function changesSince(root: string, mark: WatchMark | undefined): Promise<Changes | undefined> {
  const h = liveWatcher(root);
  if (!h || (mark && mark.id !== h.id)) return undefined;
  const cookies = ownFolder(root, 'watch');
  if ('why' in cookies) return undefined;
  const name = randomBytes(8).toString('hex');
  const cookie = join(cookies.dir, 'cookies', name);
  try {
    writeFileSync(cookie, '', { flag: 'wx' });
  } catch {
    return undefined;
  }
  try {
    const from = mark?.offset ?? h.start;
    const want = Buffer.from(`k${name}\0`);
    const until = Date.now() + BARRIER_MS;
    for (;;) {
      const data = readFrom(root, from);
      if (!data) return undefined;
      const at = data.indexOf(want);
      if (at >= 0) return parse(data.subarray(0, at), { id: h.id, offset: from + at + want.length }, mark === undefined, h.skip);
      if (data.includes(0x21) && /(^|\0)!/.test(data.toString('latin1'))) return undefined;
      // Whose pid it is was asked once (liveWatcher: alive); each turn asks only whether it still runs (no `ps`).
      if (Date.now() > until || !processAlive(h.pid)) return undefined;
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    rmSync(cookie, { force: true });
  }
}

/**
 * The records before the barrier; undefined when one says the watcher lost track, names a path that is not UTF-8,
 * or (from the start) the watcher was not yet ready.
 */
function parse(data: Buffer, mark: WatchMark, fromStart: boolean, skip: string): Changes | undefined {
  const changed = new Set<string>();
  const moved = new Set<string>();
  let ready = !fromStart;
  // A name that is not UTF-8 cannot be looked at again by the name Node would give it: no answer.
  const text = data.toString('utf8');
  if (text.includes('\uFFFD')) return undefined;
  for (const rec of text.split('\0')) {
    const type = rec[0];
    const path = rec.slice(1);
    if (type === 'c') changed.add(path);
    else if (type === 's') moved.add(path);
    else if (type === 'r') ready = true;
    else if (type === '!') return undefined;
  }
  return ready ? { mark, skip, changed: fromStart ? new Set() : changed, moved: fromStart ? new Set() : moved } : undefined;
}

/**
 * Starts a watcher for `root` (not watching `skip`, folders relative to it) unless one watching with the same skip
 * list runs; it replaces the journal and lives on after this process. Nothing happens where none can run, or
 * inside a coding tool's sandbox.
 */
export function ensureWatcher(root: string, skip: readonly string[], env: NodeJS.ProcessEnv): void {
  // Inside a coding tool's sandbox a watcher would end with the command (bubblewrap's own pid namespace): none.
  if (!canWatch(env) || sandboxHere(env)?.by === 'marker') return;
  const hash = skipHash(skip);
  if (liveWatcher(root, hash)) return;
  // One that said it cannot watch here (or reached the kernel's limit) is not started again while its journal says so.
  const h = header(root);
  if (h && h.skip === hash) {
    const rest = readFrom(root, h.start)?.toString('utf8') ?? '';
    if (/(^|\0)!(cannot watch here|the limit of inotify watches)/.test(rest)) return;
  }
  const dir = ownFolder(root, 'watch');
  if ('why' in dir) return;
  // One at a time: a watcher being started (perl or node takes a moment to write its header) is not started twice.
  const starting = join(dir.dir, 'starting');
  try {
    if (Date.now() - lstatSync(starting).mtimeMs < STARTING_MS) return;
    rmSync(starting, { force: true });
  } catch {
    /* none starting */
  }
  try {
    writeFileSync(starting, '', { flag: 'wx' });
  } catch {
    return;
  }
  const id = randomBytes(8).toString('hex');
  const skipFile = join(dir.dir, `skip.${id}`);
  try {
    writeFileSync(skipFile, skip.map((p) => `${p}\0`).join(''), { mode: 0o600 });
    const [program, args] =
      watcherHere(env) === 'fsevents'
        ? [process.execPath, [packagePath('dist/fsevents-watcher.cjs'), root, skipFile, id, hash, fseventsModule(env)]]
        : ['perl', ['-e', WATCHER_PL, root, skipFile, id, hash]];
    const child = start(program, args, {
      detached: true,
      stdio: 'ignore',
      cwd: root,
      env: { PATH: env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    });
    child.on('error', () => {
      rmSync(skipFile, { force: true });
      rmSync(starting, { force: true });
    });
    child.unref();
  } catch {
    rmSync(skipFile, { force: true });
    rmSync(starting, { force: true });
  }
}
