// Deciding what comes back from the worker: the command's changes, except where the local file changed too.
import { join } from 'node:path';
import { type FileStamp, type Snapshot, sameStamp, stampOf } from './snapshot.js';

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
  return s.replace(/\\#([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** `%M` is `YYYY/MM/DD-HH:MM:SS` in local time. */
function parseMtime(s: string): number | undefined {
  const m = /^(\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)$/.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, se).getTime() / 1000;
}

/** Parses the `--out-format=%i|%M|%l|%n` lines of a dry run. */
export function parseItems(text: string): Item[] {
  const items: Item[] = [];
  for (const line of text.split('\n')) {
    const parts = line.split('|');
    if (parts.length < 4) continue;
    const [change, mtime, size] = parts as [string, string, string];
    items.push({ change: change.trim(), mtime: parseMtime(mtime), size: Number(size) || 0, path: unescapeName(parts.slice(3).join('|')) });
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

/** The command left this file as it was sent (same size, same whole-second mtime as at the start). */
function untouchedByCommand(item: Item, before: FileStamp | undefined): boolean {
  return before !== undefined && item.mtime !== undefined && item.size === before.size && item.mtime === Math.floor(before.mtimeMs / 1000);
}

/** Splits the dry run's items into what to fetch, delete, and what conflicts with a change made here. */
export async function planBack(items: readonly Item[], root: string, before: Snapshot, startedMs: number): Promise<BackPlan> {
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
      const was = before.get(item.path);
      const now = await stampOf(join(root, item.path));
      const unchangedHere = sameStamp(was, now) && (now === undefined || now.mtimeMs < startedMs);
      if (deleting) {
        if (unchangedHere && now !== undefined) plan.remove.push(item.path);
        else if (was !== undefined && now !== undefined) plan.conflicts.push(item.path);
        return;
      }
      if (unchangedHere) plan.fetch.push(item.path);
      else if (!untouchedByCommand(item, was)) plan.conflicts.push(item.path);
    }),
  );
  for (const list of [plan.fetch, plan.remove, plan.removeDirs, plan.conflicts]) list.sort();
  return plan;
}
