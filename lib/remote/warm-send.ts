// A warm run sends nothing when nothing changed (docs/performance.md "A warm run"). The send's own inputs are
// fingerprinted here before it starts: what git ignores (the list rsync is given: .gitignore files, info/exclude,
// the user's excludes file and what is tracked all show in it), the sync settings, and the stat of every path rsync
// would walk (type, mode, size, mtime, ctime, inode: ctime is set by the kernel on every change and cannot be set
// back, so an edit with its mtime put back still shows). After a run whose report came whole and whose changes
// were all applied, the copy holds what this machine holds: the fingerprint is kept with the copy's generation.
// The next run skips rsync when the worker says its copy is untouched since (lib/remote/worker/claim.pl.ts
// copy_state) and its fingerprint is the same, or differs only in a few files (then sent in the run's own session).
// Any doubt (no git work tree, an error, a path changed here during the run that the sync back did not write) keeps
// nothing (lib/sync/warm-kept.ts), and the next run sends as always. Where a watcher of the project runs
// (lib/watch/), the fingerprint is the kept one brought up to date with what it says changed since
// (fingerprint-update.ts) instead of a look at every path.
import { createHash } from 'node:crypto';
import { type Stats, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { capture } from '../process.js';
import { gitRoot } from '../project-root.js';
import type { OwnChange } from './session.js';
import { OWN_FOLDER } from '../sync/own-folder.js';
import type { Warm } from '../sync/warm-kept.js';
import { type Delta, WarmPaths } from '../sync/warm-paths.js';
import { type WatchMark, canWatch, changesSince, ensureWatcher, skipHash } from '../watch/journal.js';
import { updatedFingerprint } from './fingerprint-update.js';
import { gitIgnored, secretsByContent } from './sync.js';
import { notBroughtBack, skipMatcher, skipRules, upFilterArgs } from './sync-rules.js';

export interface Fingerprint {
  /** What git ignores, as syncUp gives it to rsync. */
  ignored: string;
  /** The settings that shape the send, and HEAD. */
  rules: string;
  /** The hash of what git ignores and of `rules`. */
  base: string;
  /** The files sent only when they hold no secret this time (sync.ts secretsByContent), as anchored patterns. */
  hidden: string[];
  /** path (a folder's ending in '/') → its stat. */
  paths: Map<string, string>;
  /** Whether a path (a folder's ending in '/') is out of what is sent. */
  out: (key: string) => boolean;
  hash: string;
  /** What shaped `ignored` besides the project's files: HEAD, the hash of git's index, git's own settings (gitContext). */
  git: GitState;
  /** The watcher's point in its journal, taken before this fingerprint was (lib/watch/journal.ts). */
  watch?: WatchMark;
  /** 'watched': brought up to date from what the watcher said changed (fingerprint-update.ts); 'walked': every file looked at. */
  looked: 'watched' | 'walked';
  /** `paths` as warm-kept.ts writes them (when they are the kept ones laid over with `delta`, without building them). */
  written?: () => string;
  /** What changed since the kept fingerprint, when `paths` was never built (fingerprint-update.ts): path → stat now, or undefined for gone. */
  delta?: Delta;
}

/** What the list of ignored paths and the rules came from, besides the files in the project. */
export interface GitState {
  head: string;
  index: string;
  context: string;
}

export const statLine = (st: Stats): string => {
  const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? 'f' : 's';
  return `${type}:${st.mode}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
};

/** The fingerprint of what a send of `root` would read now; undefined when it cannot be trusted (not a git work tree, an error). */
export async function fingerprint(
  root: string,
  env: NodeJS.ProcessEnv,
  config: Config,
  /** What the copy keeps (never sent), and the lock files sent although ignored (sync.ts SyncTarget). */
  scope: { keep: readonly string[]; inputs: readonly string[] },
  /** The fingerprint kept after the last run: with a watcher that saw everything since, only what changed is looked at. */
  kept?: Warm,
): Promise<Fingerprint | undefined> {
  if (gitRoot(root) !== root) return undefined;
  try {
    // git told to look elsewhere (its own variables) is asked every time.
    const elsewhere = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_CONFIG_PARAMETERS'].some((v) => env[v]);
    const watchable = canWatch(env) && !elsewhere && lstatSync(join(root, '.git')).isDirectory();
    // The barrier comes first: whatever changes after it is in the journal, whatever before is in what is read next.
    const since = watchable ? await changesSince(root, kept?.watch) : undefined;
    // git asked at most once a run: the shortcut that asked and then could not answer leaves it to the walk, both
    // after the same barrier.
    const ask = gitAsk(root, env);
    if (since && kept?.watch) {
      const quick = await updatedFingerprint(root, env, config, scope, kept, since, ask);
      if (quick) return quick;
    }
    // A barrier already passed is the walk's mark; one from another watcher (the kept mark's is gone) is asked for.
    const mark = since ?? (watchable && kept?.watch ? await changesSince(root, undefined) : undefined);
    const [ignored, head] = await Promise.all([ask.ignored(), ask.head()]);
    const git = { head, index: indexHash(root), context: gitContext(root, env) };
    const made = madeFrom(root, config, scope, ignored, git);
    const paths = walk(root, made.out);
    const skip = skipDirs(ignored);
    const watch = mark && mark.skip === skipHash(skip) ? mark.mark : undefined;
    if (watchable && !watch && (env.SPAREHAND_WATCH === 'on' || paths.size >= WATCH_FROM)) ensureWatcher(root, skip, env);
    return { ...made, paths, hash: hashOf(made.base, paths), looked: 'walked', ...(watch ? { watch } : {}) };
  } catch {
    return undefined;
  }
}

/** The parts of a fingerprint that come from the rules and git's list, not from the files. */
export function madeFrom(
  root: string,
  config: Config,
  { keep, inputs }: { keep: readonly string[]; inputs: readonly string[] },
  ignored: string,
  git: GitState,
) {
  const hidden = config.sync?.sendSecrets ? [] : secretsByContent(root);
  const rules = JSON.stringify([git.head, lstatSync(root).mode, upFilterArgs(config, '', hidden), keep, inputs, config.sync ?? {}]);
  const out = outOfScope(config, ignored, keep, inputs);
  return { ignored, rules, base: baseOf(ignored, rules), hidden, out, git };
}

/** git's list of what it ignores and its HEAD, each asked for once (then the same answer). */
export interface GitAsk {
  ignored: () => Promise<string>;
  head: () => Promise<string>;
}

export function gitAsk(root: string, env: NodeJS.ProcessEnv): GitAsk {
  let ignored: Promise<string> | undefined;
  let head: Promise<string> | undefined;
  return { ignored: () => (ignored ??= gitIgnored(root, env, root)), head: () => (head ??= gitHead(root, env)) };
}

export async function gitHead(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  return (await capture('git', ['-C', root, 'rev-parse', '-q', '--verify', 'HEAD'], { env })).stdout.trim();
}

/** The hash of git's index (what is tracked shapes what is ignored): '' when there is none. */
export function indexHash(root: string): string {
  try {
    return createHash('sha1')
      .update(readFileSync(join(root, '.git', 'index')))
      .digest('hex');
  } catch {
    return '';
  }
}

/**
 * git's settings that shape what it ignores: the project's, the user's and the system's config files (their
 * content) and the user's excludes file (its stat). A config that names another excludes file is not
 * followed: the context then differs every time, and every run asks git.
 */
export function gitContext(root: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? '';
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const parts: string[] = [];
  const files = [
    join(root, '.git', 'config'),
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    '/etc/gitconfig',
    env.GIT_CONFIG_GLOBAL ?? '',
    env.GIT_CONFIG_SYSTEM ?? '',
  ];
  for (const f of files) {
    if (!f) continue;
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      /* none */
    }
    if (/excludesfile|\[include|\[includeif/i.test(text)) return `unknown:${process.hrtime.bigint()}`;
    parts.push(createHash('sha1').update(text).digest('hex'));
  }
  try {
    parts.push(statLine(lstatSync(join(xdg, 'git', 'ignore'))));
  } catch {
    parts.push('-');
  }
  return parts.join(' ');
}

/** The folders git ignores as a whole (never sent: the watcher need not watch them). */
export function skipDirs(ignored: string): string[] {
  return ignored
    .split('\0')
    .filter((p) => p.endsWith('/') && !p.startsWith(`${OWN_FOLDER}/`))
    .map((p) => p.slice(0, -1));
}

/** What rsync does not send: what git ignores, the sync rules' exclusions, what the copy keeps, sparehand's own folder. */
function outOfScope(config: Config, ignoredList: string, keep: readonly string[], inputs: readonly string[]): (key: string) => boolean {
  const ignored = new Set(ignoredList.split('\0').filter(Boolean));
  for (const i of inputs) ignored.delete(i);
  for (const k of keep) ignored.add(k);
  const skipped = skipMatcher(skipRules(notBroughtBack(config)));
  return (key) => ignored.has(key) || ignored.has(key.replace(/\/$/, '')) || skipped(key) || key === `${OWN_FOLDER}/`;
}

/** A project of fewer paths is looked at whole each time (a few milliseconds) rather than watched (a process that stays). */
const WATCH_FROM = 2_000;

/** Past this many paths no fingerprint is taken (its record would cost more than it saves): every run sends. */
const MAX_PATHS = 400_000;

/** Every path rsync would walk, with its stat. */
export function walk(root: string, out: (key: string) => boolean, under = '', paths = new Map<string, string>()): Map<string, string> {
  const dirs = [under];
  while (dirs.length > 0) {
    const d = dirs.pop() as string;
    for (const name of readdirSync(d ? join(root, d) : root)) {
      const p = d ? `${d}/${name}` : name;
      const st = lstatSync(join(root, p));
      const key = st.isDirectory() ? `${p}/` : p;
      if (out(key)) continue;
      paths.set(key, statLine(st));
      if (paths.size > MAX_PATHS) throw new Error('too many paths for a fingerprint');
      if (st.isDirectory()) dirs.push(p);
    }
  }
  return paths;
}

function baseOf(ignored: string, rules: string): string {
  // sparehand's own folder comes and goes in git's list (its staging, its records): rsync never sends it anyway.
  const listed = ignored.split('\0').filter((p) => p !== '' && !p.startsWith(`${OWN_FOLDER}/`));
  return createHash('sha256').update(listed.join('\0')).update('\0').update(rules).digest('hex');
}

export function hashOf(base: string, paths: Map<string, string>): string {
  const h = createHash('sha256').update(base).update('\0');
  for (const p of [...paths.keys()].sort()) h.update(`${p}\0${paths.get(p) as string}\0`);
  return h.digest('hex');
}

/** A stat line's mtime in whole seconds: what rsync's quick check compares (its --modify-window 0, openrsync's too). */
const mtimeSeconds = (mtimeMs: string | undefined): number => Math.floor(Number(mtimeMs) / 1000);

/**
 * The files rsync's quick check (size, and mtime in whole seconds) would take as unchanged although they changed since
 * the kept fingerprint (their ctime, inode or sub-second mtime differ: an edit that put the mtime back, or a second
 * write of the same size within the same second): sent in the run's own session after rsync.
 */
export function quickCheckBlind(kept: Warm, now: Fingerprint): string[] {
  const then = kept.paths();
  const out: string[] = [];
  for (const [p, s] of now.paths) {
    const was = then.get(p);
    if (was === undefined || was === s || !s.startsWith('f:')) continue;
    const [, , size, mtime] = s.split(':');
    const [, , wsize, wmtime] = was.split(':');
    if (size === wsize && mtimeSeconds(mtime) === mtimeSeconds(wmtime)) out.push(p);
  }
  return out;
}

/** `paths` (files) as sparehand's own changes to the copy, content and all (one that cannot be read is left to rsync). */
export function filePuts(root: string, paths: readonly string[]): OwnChange[] {
  return paths.flatMap((p): OwnChange[] => {
    try {
      const abs = join(root, p);
      const st = lstatSync(abs);
      return st.isFile() ? [{ op: 'put', path: p, mode: st.mode, mtime: st.mtimeMs / 1000, content: readFileSync(abs) }] : [];
    } catch {
      return [];
    }
  });
}

/** At most this much goes up in the run's own session instead of rsync. */
const MAX_OWN = { paths: 200, bytes: 16 * 1024 * 1024 };

/**
 * What changed here since the kept fingerprint, as sparehand's own changes to the copy (files put, paths deleted),
 * when that is all rsync would do: the same rules, only regular files and folders, no file that holds a secret this
 * time, no mode bit beyond 0777 (what `put` sets), a folder's own change only its times. Undefined when rsync must
 * send (or more than MAX_OWN changed).
 */
export function changedSince(kept: Warm, now: Fingerprint, root: string): OwnChange[] | undefined {
  if (kept.base !== now.base) return undefined;
  const hidden = new Set(now.hidden.map((p) => p.slice(1)));
  const dels: string[] = [];
  const puts: string[] = [];
  const field = (s: string, i: number) => s.split(':')[i] as string;
  // What changed: from the watcher's delta, looked up in the kept text; or the two whole maps compared.
  let was: (key: string) => string | undefined;
  let changes: Iterable<[string, string | undefined]>;
  if (now.delta) {
    const then = new WarmPaths(kept.text, kept.paths);
    was = (key) => then.kept(key);
    changes = now.delta;
  } else {
    const then = kept.paths();
    was = (key) => then.get(key);
    const gone: [string, undefined][] = [...then.keys()].filter((p) => !now.paths.has(p)).map((p) => [p, undefined]);
    changes = [...gone, ...now.paths];
  }
  for (const [p, is] of changes) {
    if (is === undefined) {
      dels.push(p.replace(/\/$/, ''));
      continue;
    }
    const before = was(p);
    if (before === is) continue;
    const type = field(is, 0);
    if (type === 'd') {
      // A folder made here (an empty one too: put cannot make it), or whose mode changed: rsync.
      if (before === undefined || field(before, 0) !== 'd' || field(before, 1) !== field(is, 1)) return undefined;
      continue;
    }
    // A file where a folder was: the folder there may hold what rsync never sends, and would stay.
    if (type !== 'f' || (Number(field(is, 1)) & 0o7000) !== 0 || hidden.has(p) || was(`${p}/`) !== undefined) return undefined;
    puts.push(p);
  }
  if (dels.length + puts.length > MAX_OWN.paths) return undefined;
  const out: OwnChange[] = dels
    .sort()
    .reverse()
    .map((path) => ({ op: 'del', path }));
  let bytes = 0;
  for (const p of puts.sort()) {
    const [put] = filePuts(root, [p]);
    if (put?.op !== 'put' || (bytes += put.content.length) > MAX_OWN.bytes) return undefined;
    out.push(put);
  }
  return out;
}
