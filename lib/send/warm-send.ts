// A warm run sends nothing when nothing changed (docs/performance.md "A warm run"). The send's own inputs are
// fingerprinted here before it starts: what git ignores (the list rsync is given: .gitignore files, info/exclude,
// the user's excludes file and what is tracked all show in it), the sync settings, and the stat of every path rsync
// would walk (type, mode, size, mtime, ctime, inode: ctime is set by the kernel on every change and cannot be set
// back, so an edit with its mtime put back still shows). After a run whose report came whole and whose changes
// were all applied, the copy holds what this machine holds: the fingerprint is kept with the copy's generation.
// The next run skips rsync when the worker says its copy is untouched since (lib/remote/worker/claim.pl
// copy_state) and its fingerprint is the same, or differs only in a few files (then sent in the run's own session).
// Any doubt (no git work tree, an error, a path changed here during the run that the sync back did not write) keeps
// nothing (lib/send/warm-kept.ts), and the next run sends as always. Where a watcher of the project runs
// (lib/watch/), the fingerprint is the kept one brought up to date with what it says changed since
// (fingerprint-update.ts) instead of a look at every path.
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { gitRoot } from '../project-root.js';
import type { OwnChange } from '../remote/session.js';
import { canWatch, changesSince, ensureWatcher, skipHash } from '../watch/journal.js';
import { type Fingerprint, type Scope, gitAsk, hashOf, indexHash, gitContext, madeFrom, skipDirs, walk } from './fingerprint-parts.js';
import { updatedFingerprint } from './fingerprint-update.js';
import type { Warm } from './warm-kept.js';
import { WarmPaths } from './warm-paths.js';

/** The fingerprint of what a send of `root` would read now; undefined when it cannot be trusted (not a git work tree, an error). */
export async function fingerprint(
  root: string,
  env: NodeJS.ProcessEnv,
  config: Config,
  /** What the copy keeps (never sent), the lock files sent although ignored, the secret list's tracked files (sync.ts SyncTarget). */
  scope: Scope,
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

/** A project of fewer paths is looked at whole each time (a few milliseconds) rather than watched (a process that stays). */
const WATCH_FROM = 2_000;

/** A path from an anchored pattern (held-back.ts anchored): its wildcards unescaped. */
const unanchored = (p: string): string => p.slice(1).replace(/\\(.)/g, '$1');

/** A stat line's mtime in whole seconds: what rsync's quick check compares (its --modify-window 0, openrsync's too). */
const mtimeSeconds = (mtimeMs: string | undefined): number => Math.floor(Number(mtimeMs) / 1000);

/**
 * The files rsync's quick check (size, and mtime in whole seconds) would take as unchanged although they changed since
 * the kept fingerprint or the last send (`kept`: warm-kept.ts; their ctime, inode or sub-second mtime differ: an edit
 * that put the mtime back, or a second write of the same size within the same second): sent in the run's own session
 * after rsync. Never one that holds a secret this time (`hidden`): rsync hides those.
 */
export function quickCheckBlind(kept: Pick<Warm, 'paths'>, now: Fingerprint): string[] {
  const then = kept.paths();
  const hidden = new Set(now.hidden.map(unanchored));
  const out: string[] = [];
  for (const [p, s] of now.paths) {
    const was = then.get(p);
    if (was === undefined || was === s || !s.startsWith('f:') || hidden.has(p)) continue;
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
  const hidden = new Set(now.hidden.map(unanchored));
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
