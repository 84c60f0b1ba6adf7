// The warm send's memory (lib/send/warm-send.ts): per copy of the project on a worker, the fingerprint of the
// project as it was when that copy last held the same, and the copy's generation then, in
// `.sparehand/sync/<copy>.warm`. It is taken (removed) at the start of each run and written again only at the end
// of a run whose changes were all applied here, so a run that ends in any other way leaves none.
import { type Stats, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeOwnFileSync } from '../fs-atomic.js';
import { join } from 'node:path';
import { type Fingerprint, type GitState, hashOf, statLine } from './fingerprint-parts.js';
import type { WatchMark } from '../watch/journal.js';
import { KeptText, textOf } from './warm-paths.js';
import { localHash } from '../sync/apply.js';
import type { Change } from '../remote/change.js';
import { OWN_FOLDER, ownFolder } from '../state/own-folder.js';

/** What is kept per copy: the generation the worker wrote at the end of that run, and the fingerprint then. */
export interface Warm {
  gen: string;
  hash: string;
  base: string;
  /** The paths and their stat then (read only when the fingerprint now differs: warm-send.ts quickCheckBlind). */
  paths: () => Map<string, string>;
  /** The paths as written, looked up in without building them (warm-paths.ts), and kept again as they are when nothing changed. */
  text: KeptText;
  /** What git ignored then and what shaped it, and the watcher's point then (fingerprint-update.ts). */
  ignored?: string;
  git?: GitState;
  watch?: WatchMark;
}

const FILE = (copy: string) => join(OWN_FOLDER, 'sync', `${copy}.warm`);

/** The copy's kept fingerprint, taken: it is removed at once, so a run that ends before keeping a new one leaves none. */
export function takeWarm(root: string, copy: string): Warm | undefined {
  const file = join(root, FILE(copy));
  try {
    // A line of JSON ({gen, hash}), then "path\0stat\0" for each path.
    const text = readFileSync(file, 'utf8');
    rmSync(file, { force: true });
    const nl = text.indexOf('\n');
    const w = JSON.parse(text.slice(0, nl)) as { gen: unknown; hash: unknown; base: unknown; ignored?: unknown; git?: unknown; watch?: unknown };
    if (typeof w.gen !== 'string' || w.gen.length === 0 || typeof w.hash !== 'string' || typeof w.base !== 'string') return undefined;
    const git = w.git as Partial<GitState> | undefined;
    const watch = w.watch as Partial<WatchMark> | undefined;
    const sure = typeof w.ignored === 'string' && typeof git?.head === 'string' && typeof git.index === 'string' && typeof git.context === 'string';
    const marked = typeof watch?.id === 'string' && Number.isSafeInteger(watch.offset);
    const paths = () => {
      const parts = text.slice(nl + 1).split('\0');
      const m = new Map<string, string>();
      for (let i = 0; i + 1 < parts.length; i += 2) m.set(parts[i] as string, parts[i + 1] as string);
      return m;
    };
    return {
      gen: w.gen,
      hash: w.hash,
      base: w.base,
      paths,
      text: new KeptText(() => text.slice(nl + 1)),
      ...(sure ? { ignored: w.ignored as string, git: git as GitState } : {}),
      ...(sure && marked ? { watch: watch as WatchMark } : {}),
    };
  } catch {
    rmSync(file, { force: true });
    return undefined;
  }
}

/**
 * After a run whose changes were all applied here: the fingerprint taken before the send (`before`), with what the
 * sync back wrote (`applied`: each must hold what the worker reported, with a ctime older than `appliedBy`, so not
 * edited here since) and the folders holding those (their mode unchanged) brought up to date, is kept for the next
 * run. Whatever else changed here since `before` was taken is not in it: the next run sees a difference and sends.
 */
export function keepWarm(root: string, copy: string, gen: string, before: Fingerprint, applied: readonly Change[], appliedBy: number): boolean {
  if (!applied.every((c) => holdsReported(root, c, appliedBy))) return false;
  const paths = applied.length === 0 ? (before.written ? new Map<string, string>() : before.paths) : new Map(before.paths);
  const holders = new Set<string>();
  for (const c of [...applied].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const parts = c.path.split('/');
    for (let i = 1; i < parts.length; i++) holders.add(`${parts.slice(0, i).join('/')}/`);
    const key = c.type === 'd' ? `${c.path}/` : c.path;
    const parent = parts.length > 1 ? `${parts.slice(0, -1).join('/')}/` : '';
    if (c.op === 'D') {
      paths.delete(c.path);
      paths.delete(`${c.path}/`);
    } else if ((parent === '' || paths.has(parent)) && !before.out(key)) paths.set(key, statLine(lstatSync(join(root, c.path))));
  }
  for (const h of holders) {
    const was = paths.get(h);
    if (was === undefined) continue;
    let st: Stats;
    try {
      st = lstatSync(join(root, h));
    } catch {
      return false;
    }
    const is = statLine(st);
    if (is.split(':').slice(0, 2).join(':') !== was.split(':').slice(0, 2).join(':')) return false;
    paths.set(h, is);
  }
  const dir = ownFolder(root, 'sync');
  if ('why' in dir) return false;
  const file = join(root, FILE(copy));
  try {
    const hash = applied.length === 0 ? before.hash : hashOf(before.base, paths);
    const head = { gen, hash, base: before.base, ignored: before.ignored, git: before.git, ...(before.watch ? { watch: before.watch } : {}) };
    const lines = [`${JSON.stringify(head)}\n`];
    lines.push(applied.length === 0 && before.written ? before.written() : textOf(paths));
    writeOwnFileSync(file, lines.join(''));
    return true;
  } catch {
    return false;
  }
}

const SENT = (copy: string) => join(OWN_FOLDER, 'sync', `${copy}.sent`);

/** What the last send to a copy sent: each path's stat then, for the quick check rsync cannot make (warm-send.ts quickCheckBlind). */
export interface SentRecord {
  paths: () => Map<string, string>;
}

/**
 * The stat of every path the last rsync to the copy sent (`.sparehand/sync/<copy>.sent`), kept whatever the run's
 * end: unlike the warm fingerprint, which only a run that ended whole keeps, it says what the copy was given, so
 * that after any run a file edited here with its size and mtime kept (`cp -p`, `tar x`), which rsync's quick check
 * takes as unchanged, is still seen by its ctime and inode, as git's index sees it. Undefined when there is none.
 */
export function sentRecord(root: string, copy: string): SentRecord | undefined {
  let text: string;
  try {
    text = readFileSync(join(root, SENT(copy)), 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  if (nl < 0 || text.slice(0, nl) !== SENT_HEAD) return undefined;
  return {
    paths: () => {
      const parts = text.slice(nl + 1).split('\0');
      const m = new Map<string, string>();
      for (let i = 0; i + 1 < parts.length; i += 2) m.set(parts[i] as string, parts[i + 1] as string);
      return m;
    },
  };
}

const SENT_HEAD = 'sparehand sent 1';

/**
 * Right after rsync sent the project: what it read (`sent`, the fingerprint taken before it). The files the quick
 * check found blind this time go up in the run's own session after rsync, which may never happen (the session
 * lost): they are kept with a stat no file has, so the next run sends them again until one keeps a fingerprint.
 */
export function keepSent(root: string, copy: string, sent: Fingerprint, blind: readonly string[]): boolean {
  const dir = ownFolder(root, 'sync');
  if ('why' in dir) return false;
  let body: string;
  if (blind.length === 0) body = sent.written ? sent.written() : textOf(sent.paths);
  else {
    const paths = new Map(sent.paths);
    for (const p of blind) {
      const line = paths.get(p);
      if (line === undefined) continue;
      // type:mode:size:mtime as they are, ctime and inode none: the same size and mtime, never the same file.
      paths.set(p, `${line.split(':').slice(0, 4).join(':')}:0:0`);
    }
    body = textOf(paths);
  }
  try {
    writeOwnFileSync(join(root, SENT(copy)), `${SENT_HEAD}\n${body}`);
    return true;
  } catch {
    return false;
  }
}

/** Whether the path of change `c` holds here what the worker reported (content, and a file's mtime), untouched since `by` (a ctime). */
function holdsReported(root: string, c: Change, by: number): boolean {
  const abs = join(root, c.path);
  let st: Stats;
  try {
    st = lstatSync(abs);
  } catch {
    return c.op === 'D';
  }
  if (c.op === 'D' || st.ctimeMs >= by) return false;
  if (c.type === 'd') return st.isDirectory();
  if (c.type === 'l' ? !st.isSymbolicLink() : c.type === 'f' ? !st.isFile() : true) return false;
  const want = c.hash ?? c.base;
  return want !== undefined && localHash(abs, st) === want;
}

/** A ctime newer than every write so far and not newer than any write from now on (a marker file written until the clock has moved on). */
export async function ctimeNow(dir: string): Promise<number> {
  const file = join(dir, 'warm-mark');
  writeFileSync(file, '');
  const first = lstatSync(file).ctimeMs;
  for (let i = 0; i < 400; i++) {
    await new Promise((r) => setTimeout(r, 1));
    writeFileSync(file, 'x');
    const now = lstatSync(file).ctimeMs;
    if (now > first) return now;
  }
  return first;
}
