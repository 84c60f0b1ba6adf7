// Small git projects for sync tests, and ways to act here while a command runs on the worker.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { sharedTempDir, tempDir } from './context.js';

/** A year-old time: a file written before the run, as far as any clock can tell. */
export const OLD = new Date('2025-06-01T12:00:00Z');

/** A git project holding `files` (path → content), every file and folder dated OLD. */
export function gitProject(files: Record<string, string>): string {
  const dir = tempDir('sparehand-proj-');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  for (const [p, s] of Object.entries(files)) write(dir, p, s);
  age(dir);
  return dir;
}

/** The md5 of `s` in hex, as the sync back's change records carry a file's content. */
export const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

/** Writes `content` at `p` under `root`, making folders. */
export function write(root: string, p: string, content: string): void {
  mkdirSync(dirname(join(root, p)), { recursive: true });
  writeFileSync(join(root, p), content);
}

/** Dates every file and folder under `root` (but .git) OLD. */
export function age(root: string): void {
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      utimesSync(p, OLD, OLD);
    }
  };
  walk(root);
  utimesSync(root, OLD, OLD);
}

/** Every file under `root` (not .git, not sparehand's own .sparehand/) with its content. */
export function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.git' && relative(root, p) !== '.sparehand') walk(p);
      } else out[relative(root, p)] = e.isSymbolicLink() ? '<link>' : readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}

/** A file the command touches on the worker (this machine) to say it has started. */
export function startMarker(): { path: string; touch: string; started: () => boolean } {
  // A worker whose sessions are not root's must be able to touch it too.
  const dir = sharedTempDir('sparehand-mark-');
  const path = join(dir, 'started');
  return { path, touch: `touch ${path}`, started: () => existsSync(path) };
}

/** Whether `cond` holds within `ms`: asked again every 25 ms after each answer (an async one is awaited), last at the deadline. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    const left = end - Date.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(25, left)));
  }
}

/** Largest number of [start, end] intervals open at the same moment. */
export function maxOverlap(intervals: ReadonlyArray<[number, number]>): number {
  const events = intervals.flatMap(([s, e]) => [[s, 1] as const, [e, -1] as const]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (open += d));
  return max;
}
