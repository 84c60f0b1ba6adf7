// Deciding what comes back from the worker: the command's changes, except where the local file changed too.
import { dirname, join } from 'node:path';
import { stampOf } from './stamp.js';

export interface Item {
  /** rsync's %i: `>f+++++++++`, `*deleting`, `cd+++++++++`, … */
  change: string;
  /** The worker's mtime in seconds (from %M), when rsync gave one. */
  mtime: number | undefined;
  size: number;
  path: string;
}

/** rsync escapes odd bytes in names as `\#ooo` (octal). */
function unescapeName(s: string): string {
  return s.includes('\\#') ? s.replace(/\\#([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))) : s;
}

/** `%M` is `YYYY/MM/DD-HH:MM:SS` in local time; many files share one, so each distinct value is parsed once. */
function mtimeParser(): (s: string) => number | undefined {
  const seen = new Map<string, number | undefined>();
  return (s) => {
    if (seen.has(s)) return seen.get(s);
    const m = /^(\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)$/.exec(s);
    const [y, mo, d, h, mi, se] = (m ? m.slice(1).map(Number) : []) as [number, number, number, number, number, number];
    const v = m ? new Date(y, mo - 1, d, h, mi, se).getTime() / 1000 : undefined;
    seen.set(s, v);
    return v;
  };
}

/** Parses `--out-format=%i|%M|%l|%n` lines (a 20,000-file listing is on the hot path: no regex per line). */
export function parseItems(text: string): Item[] {
  const items: Item[] = [];
  const mtime = mtimeParser();
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const a = text.indexOf('|', at);
    const b = a < 0 ? -1 : text.indexOf('|', a + 1);
    const c = b < 0 ? -1 : text.indexOf('|', b + 1);
    if (c >= 0 && c < end) {
      items.push({
        change: text.slice(at, a).trim(),
        mtime: mtime(text.slice(a + 1, b)),
        size: Number(text.slice(b + 1, c)) || 0,
        path: unescapeName(text.slice(c + 1, end)),
      });
    }
    at = end + 1;
  }
  return items;
}

export interface BackPlan {
  /** Files to fetch from the worker. */
  fetch: string[];
  /** Local files to delete (the command deleted them). */
  remove: string[];
  /** Folders the command deleted (removed here when empty). */
  removeDirs: string[];
  /** Files changed both here and by the command: the local one is kept. */
  conflicts: string[];
}

/** Tolerated difference between the worker's clock and this one. */
const SKEW_MS = 60_000;

/** The worker's copy is well older than the run: the command did not write it (worker clock, whole seconds). */
function untouchedByCommand(item: Item, startedMs: number): boolean {
  return item.mtime !== undefined && item.mtime * 1000 < startedMs - SKEW_MS;
}

/** The nearest folder of `rel` that still exists here, and whether it changed since the run started. */
async function folderChangedHere(root: string, rel: string, startedMs: number): Promise<boolean> {
  for (let dir = dirname(rel); ; dir = dirname(dir)) {
    const st = await stampOf(join(root, dir));
    if (st) return writtenSince(st.mtimeMs, startedMs);
    if (dir === '.' || dir === '') return false;
  }
}

/** File times come from a coarse kernel clock that lags Date.now() by a few ms; whole-second times may be truncated. */
const CLOCK_SLACK_MS = 50;

/** Written here since the run started (or too close to its start to tell: then it counts as written). */
export function writtenSince(mtimeMs: number, startedMs: number): boolean {
  if (mtimeMs % 1000 === 0) return mtimeMs >= Math.floor(startedMs / 1000) * 1000 - CLOCK_SLACK_MS;
  return mtimeMs >= startedMs - CLOCK_SLACK_MS;
}

/**
 * Splits the dry run's items into what to fetch, delete, and what conflicts with a change made here. "Changed
 * here" is judged by this machine's clock alone: a file (or, for a missing file, its folder) written since the
 * run started. No listing of the whole tree is needed.
 */
export async function planBack(items: readonly Item[], root: string, startedMs: number): Promise<BackPlan> {
  const plan: BackPlan = { fetch: [], remove: [], removeDirs: [], conflicts: [] };
  await Promise.all(
    items.map(async (item) => {
      const isDir = item.path.endsWith('/');
      const deleting = item.change.startsWith('*deleting');
      if (isDir) {
        if (deleting) plan.removeDirs.push(item.path.slice(0, -1));
        return;
      }
      const kind = item.change.slice(1, 2);
      if (!deleting && kind !== 'f' && kind !== 'L') return;
      const now = await stampOf(join(root, item.path));
      if (deleting) {
        // The command deleted it. Not written here since the run started: delete it here too. Otherwise keep it;
        // a file made here during the run (born after the start) is simply kept, an edited one is a conflict.
        if (now === undefined) return;
        if (!writtenSince(now.mtimeMs, startedMs)) plan.remove.push(item.path);
        else if (!(now.birthtimeMs > 0 && writtenSince(now.birthtimeMs, startedMs))) plan.conflicts.push(item.path);
        return;
      }
      if (now !== undefined) {
        // Present here: take the worker's version unless this one was written during the run.
        if (!writtenSince(now.mtimeMs, startedMs)) plan.fetch.push(item.path);
        else if (!untouchedByCommand(item, startedMs)) plan.conflicts.push(item.path);
        return;
      }
      // Absent here: the command made it, or it was deleted here. Deleted here during the run (its folder changed)
      // and not written by the command: stays deleted. Otherwise it comes back (at worst, a deleted file returns).
      if (!(untouchedByCommand(item, startedMs) && (await folderChangedHere(root, item.path, startedMs)))) plan.fetch.push(item.path);
    }),
  );
  for (const list of [plan.fetch, plan.remove, plan.removeDirs, plan.conflicts]) list.sort();
  return plan;
}
