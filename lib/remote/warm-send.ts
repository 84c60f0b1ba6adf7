// A warm run sends nothing when nothing changed (docs/performance.md "A warm run"). The send's own inputs are
// fingerprinted here before it starts: what git ignores (the list rsync is given: .gitignore files, info/exclude,
// the user's excludes file and what is tracked all show in it), the sync settings, and the stat of every path rsync
// would walk (type, mode, size, mtime, ctime, inode: ctime is set by the kernel on every change and cannot be set
// back, so an edit with its mtime put back still shows). After a run whose report came whole and whose changes
// were all applied, the copy holds what this machine holds: the fingerprint is kept with the copy's generation.
// The next run skips rsync when the worker says its copy is untouched since (lib/remote/worker/claim.pl.ts
// copy_state) and its fingerprint is the same, or differs only in a few files (then sent in the run's own session).
// Any doubt (no git work tree, an error, a path changed here during the run that the sync back did not write) keeps
// nothing (lib/sync/warm-kept.ts), and the next run sends as always.
import { createHash } from 'node:crypto';
import { type Stats, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { capture } from '../process.js';
import { gitRoot } from '../project-root.js';
import type { OwnChange } from './session.js';
import { OWN_FOLDER } from '../sync/own-folder.js';
import type { Warm } from '../sync/warm-kept.js';
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
  { keep, inputs }: { keep: readonly string[]; inputs: readonly string[] },
): Promise<Fingerprint | undefined> {
  if (gitRoot(root) !== root) return undefined;
  try {
    const [ignored, head] = await Promise.all([gitIgnored(root, env, root), capture('git', ['-C', root, 'rev-parse', '-q', '--verify', 'HEAD'], { env })]);
    const hidden = config.sync?.sendSecrets ? [] : secretsByContent(root);
    const rules = JSON.stringify([head.stdout.trim(), lstatSync(root).mode, upFilterArgs(config, '', hidden), keep, inputs, config.sync ?? {}]);
    const out = outOfScope(config, ignored, keep, inputs);
    const paths = walk(root, out);
    const base = baseOf(ignored, rules);
    return { ignored, rules, base, hidden, paths, out, hash: hashOf(base, paths) };
  } catch {
    return undefined;
  }
}

/** What rsync does not send: what git ignores, the sync rules' exclusions, what the copy keeps, sparehand's own folder. */
function outOfScope(config: Config, ignoredList: string, keep: readonly string[], inputs: readonly string[]): (key: string) => boolean {
  const ignored = new Set(ignoredList.split('\0').filter(Boolean));
  for (const i of inputs) ignored.delete(i);
  for (const k of keep) ignored.add(k);
  const skipped = skipMatcher(skipRules(notBroughtBack(config)));
  return (key) => ignored.has(key) || ignored.has(key.replace(/\/$/, '')) || skipped(key) || key === `${OWN_FOLDER}/`;
}

/** Past this many paths no fingerprint is taken (its record would cost more than it saves): every run sends. */
const MAX_PATHS = 400_000;

/** Every path rsync would walk, with its stat. */
function walk(root: string, out: (key: string) => boolean): Map<string, string> {
  const paths = new Map<string, string>();
  const dirs = [''];
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

/**
 * The files rsync's quick check (size and mtime) would take as unchanged although they changed since the kept
 * fingerprint (their ctime or inode differ: an edit that put the mtime back): sent with --checksum.
 */
export function quickCheckBlind(kept: Warm, now: Fingerprint): string[] {
  const then = kept.paths();
  const out: string[] = [];
  for (const [p, s] of now.paths) {
    const was = then.get(p);
    if (was === undefined || was === s || !s.startsWith('f:')) continue;
    const [, , size, mtime] = s.split(':');
    const [, , wsize, wmtime] = was.split(':');
    if (size === wsize && mtime === wmtime) out.push(p);
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
  const then = kept.paths();
  const hidden = new Set(now.hidden.map((p) => p.slice(1)));
  const dels: string[] = [];
  const puts: string[] = [];
  const field = (s: string, i: number) => s.split(':')[i] as string;
  for (const [p] of then) if (!now.paths.has(p)) dels.push(p.replace(/\/$/, ''));
  for (const [p, is] of now.paths) {
    const was = then.get(p);
    if (was === is) continue;
    const type = field(is, 0);
    if (type === 'd') {
      // A folder made here (an empty one too: put cannot make it), or whose mode changed: rsync.
      if (was === undefined || field(was, 0) !== 'd' || field(was, 1) !== field(is, 1)) return undefined;
      continue;
    }
    // A file where a folder was: the folder there may hold what rsync never sends, and would stay.
    if (type !== 'f' || (Number(field(is, 1)) & 0o7000) !== 0 || hidden.has(p) || then.has(`${p}/`)) return undefined;
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
