// The sync's memory: per copy of the project on a worker, an *ancestor* — for every path rsync does not send
// (outputs: ignored here), what that copy holds as sparehand last knew it, and whether this machine held the same.
// It lives here, in `.sparehand/sync/<copy>.json` (the project's own folder: writable wherever the project is,
// inside an agent's sandbox too), and is checked against the worker's own record by a generation token that the
// copy keeps beside it: a copy reset, wiped or changed by a run whose report never came back no longer matches,
// and its ancestor is then dropped (that can cost conflicts, never data).
//
// What it is for (docs/run.md "The sync remembers"):
//   - what was deleted or changed here since is made so in the copy before the command runs (`ownChanges`), so a
//     deleted `dist/` is deleted there too, rebuilt, and comes back;
//   - a file here that is byte for byte what sparehand left there (from any copy) is sparehand's to replace
//     (`mineAt`): the copies never conflict with each other over their own outputs;
//   - what the copy holds that never came here — native code of the worker's platform, which does not run here
//     (decide.ts 'keep') — is marked `k` (sent paths too): never deleted there for being missing here, and kept out
//     of the way up (`keptPaths`), so the next run's sync leaves it there and `worker fetch` finds it.
import { createHash, randomBytes } from 'node:crypto';
import { type Stats, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { writeOwnFileSync } from '../fs-atomic.js';
import { join } from 'node:path';
import type { OwnChange } from '../remote/session.js';
import type { Outcome } from './apply.js';
import { localHash } from './apply.js';
import type { Change } from '../remote/change.js';
import { OWN_FOLDER, ownFolder } from '../state/own-folder.js';
import type { Worker } from '../config.js';
import { workerWhere } from '../remote/transport.js';

export interface Entry {
  t: 'f' | 'l' | 'd';
  /** md5 of the content (a link's target); '' for a folder. */
  h: string;
  m: number;
  /** This machine's file as it was when it held the same (signature()), absent when it did not. */
  s?: string;
  /** Kept on the worker: it does not run here, and was never written here. */
  k?: 1;
}

export interface Ancestor {
  v: 1;
  /** The copy's generation, as the worker keeps it beside the copy ('' for none). */
  gen: string;
  paths: Record<string, Entry>;
}

const SYNC = 'sync';
/** A file changed here that is bigger than this is not sent up as sparehand's own change: it is deleted there instead (the build makes it again). */
const MAX_PUT = 64 * 1024 * 1024;

export const emptyAncestor = (): Ancestor => ({ v: 1, gen: '', paths: {} });
export const newGeneration = (): string => randomBytes(12).toString('hex');

/** What identifies a file's state here without reading it (ctime: a change cannot set it back). */
export const signature = (st: Stats): string => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

/** The copy's file name: the worker (name and where it is) and the copy's number there. */
export function copyId(worker: Pick<Worker, 'name' | 'destination' | 'exec' | 'port' | 'dir'>, folder: number, key: string): string {
  const safe = worker.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  const where = createHash('sha256')
    .update(JSON.stringify([workerWhere(worker), worker.port ?? null, worker.dir ?? null, key]))
    .digest('hex')
    .slice(0, 10);
  return `${safe}-${where}-${folder}`;
}

function isEntry(e: unknown): e is Entry {
  const x = e as Entry;
  return (
    typeof x === 'object' &&
    x !== null &&
    ['f', 'l', 'd'].includes(x.t) &&
    typeof x.h === 'string' &&
    typeof x.m === 'number' &&
    (x.s === undefined || typeof x.s === 'string') &&
    (x.k === undefined || x.k === 1)
  );
}

/** The copy's ancestor, or an empty one (missing, unreadable, or not one). */
export function loadAncestor(root: string, id: string): Ancestor {
  try {
    const raw = JSON.parse(readFileSync(join(root, OWN_FOLDER, SYNC, `${id}.json`), 'utf8')) as Ancestor;
    if (raw.v !== 1 || typeof raw.gen !== 'string' || typeof raw.paths !== 'object' || raw.paths === null) return emptyAncestor();
    const paths: Record<string, Entry> = {};
    for (const [p, e] of Object.entries(raw.paths)) if (isEntry(e)) paths[p] = e;
    return { v: 1, gen: raw.gen, paths };
  } catch {
    return emptyAncestor();
  }
}

/** Writes the copy's ancestor (atomically); false when it cannot be kept (then the next run has none). */
export function saveAncestor(root: string, id: string, a: Ancestor): boolean {
  const dir = ownFolder(root, SYNC);
  if ('why' in dir) return false;
  const file = join(dir.dir, `${id}.json`);
  try {
    writeOwnFileSync(file, JSON.stringify(a));
    return true;
  } catch {
    return false;
  }
}

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * What to change in the copy before the command so that its outputs are what is here: a path deleted here is
 * deleted there; a file changed here is sent (up to MAX_PUT, else deleted there) — only where both sides held the
 * same before (`s`: it came back from the worker, or was the same here). What this machine never held as the copy
 * does (a conflict, a refusal, a file that was only ever here) is never read for the worker, and nothing `never`
 * names (secrets, dependency folders, caches) is touched, whatever the record says. Returns the changes and the
 * ancestor as it will be once the copy has them.
 */
export function ownChanges(root: string, a: Ancestor, never: (p: string, type?: string) => boolean): { changes: OwnChange[]; after: Ancestor } {
  const after: Ancestor = { v: 1, gen: a.gen, paths: { ...a.paths } };
  const dels: string[] = [];
  const puts: OwnChange[] = [];
  for (const [p, e] of Object.entries(a.paths)) {
    // The worker's own platform's file: missing here on purpose, and whatever is here is not its replacement.
    if (e.k) continue;
    // A record naming a secret was never sparehand's to keep (the way up hides those, and deletes them there).
    if (never(p, e.t)) {
      delete after.paths[p];
      continue;
    }
    const abs = join(root, p);
    const st = lstatOrUndefined(abs);
    const del = () => {
      dels.push(p);
      delete after.paths[p];
    };
    if (st === undefined) {
      del();
      continue;
    }
    if (e.t === 'd') {
      if (!st.isDirectory()) del();
      continue;
    }
    const sig = signature(st);
    if (e.s === sig) continue;
    const type = st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : 'other';
    // Through a link here (a folder above replaced by one), the path is not the one sparehand wrote: nothing is read.
    if (!inRealFolders(root, p)) {
      del();
      continue;
    }
    const hash = type === 'other' ? '' : localHash(abs, st);
    // This machine never held what the copy holds (a conflict, a refusal): whatever is here is its own, and stays here,
    // even once it has the same bytes (a file only ever here is never adopted by a report naming its content).
    if (e.s === undefined) continue;
    if (type === e.t && hash === e.h) {
      after.paths[p] = { ...e, s: sig };
      continue;
    }
    if (type === 'f' && st.size <= MAX_PUT) {
      try {
        puts.push({ op: 'put', path: p, mode: st.mode & 0o777, mtime: st.mtimeMs / 1000, content: readFileSync(abs) });
        after.paths[p] = { t: 'f', h: hash, m: st.mode & 0o777, s: sig };
        continue;
      } catch {
        /* unreadable here: deleted there instead */
      }
    }
    del();
  }
  // Deepest first, so that a folder is empty when its turn comes.
  dels.sort((x, y) => (x < y ? 1 : x > y ? -1 : 0));
  return { changes: [...dels.map((path): OwnChange => ({ op: 'del', path })), ...puts], after };
}

/** Whether every folder above `p` (relative to `root`) is a folder here, not a link to one. */
function inRealFolders(root: string, p: string): boolean {
  const parts = p.split('/');
  for (let i = 1; i < parts.length; i++) if (!lstatOrUndefined(join(root, ...parts.slice(0, i)))?.isDirectory()) return false;
  return true;
}

/** Hashes of what sparehand left at each path here, from every copy's ancestor (read once per run). */
export function mineIndex(root: string): (path: string) => string[] {
  const byPath = new Map<string, string[]>();
  let names: string[] = [];
  try {
    names = readdirSync(join(root, OWN_FOLDER, SYNC)).filter((n) => n.endsWith('.json'));
  } catch {
    /* none yet */
  }
  for (const n of names) {
    const a = loadAncestor(root, n.slice(0, -'.json'.length));
    for (const [p, e] of Object.entries(a.paths)) {
      if (e.s === undefined || e.t === 'd') continue;
      const list = byPath.get(p) ?? [];
      list.push(e.h);
      byPath.set(p, list);
    }
  }
  return (p) => byPath.get(p) ?? [];
}

/** The ancestor after a run: every output the command changed, as the copy now holds it and whether here does too. */
export function afterRun(
  base: Ancestor,
  root: string,
  changes: readonly Change[],
  outcomes: ReadonlyMap<number, Outcome>,
  /** `notSent`: what rsync does not send (outputs); `never`: what never comes back (secrets, dependencies, caches). */
  paths: { notSent: (p: string) => boolean; never: (p: string, type?: string) => boolean },
  gen: string,
): Ancestor {
  const { notSent, never } = paths;
  const next: Ancestor = { v: 1, gen, paths: { ...base.paths } };
  for (const c of changes) {
    const outcome = outcomes.get(c.index);
    // A report naming a secret is refused, and no record of it is kept: nothing of it is ever sparehand's to send.
    if (never(c.path, c.type)) {
      delete next.paths[c.path];
      continue;
    }
    // Kept on the worker now, or before and only touched there since (decide.ts): still kept, whether rsync sends the path or not.
    const kept = outcome === 'kept' || (outcome === 'skipped' && base.paths[c.path]?.k === 1 && c.op !== 'D');
    if ((!notSent(c.path) && !kept && base.paths[c.path]?.k === undefined) || c.type === 's') continue;
    if (c.op === 'D') {
      delete next.paths[c.path];
      continue;
    }
    const hash = c.type === 'd' ? '' : (c.hash ?? c.base ?? '');
    const entry: Entry = { t: c.type, h: hash, m: c.mode & 0o777 };
    if (kept) {
      next.paths[c.path] = { ...entry, k: 1 };
      continue;
    }
    if (!notSent(c.path)) {
      // A sent path the worker kept before, now brought back (or in conflict): rsync's to keep in step from now on.
      delete next.paths[c.path];
      continue;
    }
    // Both sides hold it when its content came back now (written here from the worker), or when they held it before and
    // still do; never because the worker named what was only ever here (the same bytes, or a touch of them).
    const cameBack = outcome === 'applied' && (c.op === 'C' || c.op === 'M');
    const heldBefore = base.paths[c.path]?.s !== undefined;
    if (cameBack || ((outcome === 'applied' || outcome === 'same') && (heldBefore || c.type === 'd'))) {
      const st = lstatOrUndefined(join(root, c.path));
      if (st && (c.type === 'd' ? st.isDirectory() : c.type === 'f' ? st.isFile() : st.isSymbolicLink())) {
        if (c.type === 'd' || c.type === 'f' || readlinkOk(join(root, c.path), c.target)) entry.s = c.type === 'd' ? 'd' : signature(st);
      }
    }
    next.paths[c.path] = entry;
  }
  return next;
}

/**
 * The paths the copy keeps for itself (`k`) that nothing here stands at: kept out of the way up, so that rsync
 * does not delete them there for being missing here. (Where a file is here, rsync does as it always does: an
 * ignored one is not sent, a sent one is the project's truth.)
 */
export function keptPaths(root: string, a: Ancestor): string[] {
  return Object.entries(a.paths)
    .filter(([p, e]) => e.k === 1 && lstatOrUndefined(join(root, p)) === undefined)
    .map(([p]) => p);
}

function readlinkOk(p: string, target: string): boolean {
  try {
    return readlinkSync(p) === target;
  } catch {
    return false;
  }
}

/**
 * `a` (copy `id`'s ancestor) with the outputs that another copy brought here and that were changed here since
 * (built on copy 0, then edited by hand): this copy never held them, but they are outputs both sides held, so
 * `ownChanges` sends the edit up first and the command's own write to it wins there as it would here. (Without
 * it, a build on copy 1 met the edit as "a different file is here": a conflict where a build here rewrites it.)
 */
export function withOtherCopies(root: string, id: string, a: Ancestor): Ancestor {
  const others = new Map<string, Entry[]>();
  for (const n of ancestorNames(root)) {
    if (n === id) continue;
    for (const [p, e] of Object.entries(loadAncestor(root, n).paths)) {
      if (e.t !== 'f' || e.s === undefined || e.k || a.paths[p] !== undefined) continue;
      const list = others.get(p);
      if (list) list.push(e);
      else others.set(p, [e]);
    }
  }
  const paths = { ...a.paths };
  for (const [p, entries] of others) {
    const st = lstatOrUndefined(join(root, p));
    if (!st?.isFile()) continue;
    const sig = signature(st);
    if (entries.some((e) => e.s === sig)) continue;
    const hash = localHash(join(root, p), st);
    if (entries.some((e) => e.h === hash)) continue;
    // (Its `s` is the other copy's: not this file's, so ownChanges reads it and sends it.)
    paths[p] = entries[0] as Entry;
  }
  return { ...a, paths };
}

function ancestorNames(root: string): string[] {
  try {
    return readdirSync(join(root, OWN_FOLDER, SYNC))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -'.json'.length));
  } catch {
    return [];
  }
}
