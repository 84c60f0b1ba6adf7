// What a run on a worker says when it ends: one line per conflict (a few, then a count), the summary line.
import type { Applied, Conflict } from '../sync/apply.js';
import { conflictSentence, keptSentence } from '../sync/decide.js';
import type { ExecResult } from '../remote/session.js';

/** At most this many conflict lines; the rest are counted. */
const MAX_CONFLICT_LINES = 20;
/** Above this much coming back, the summary names the biggest folder and how to keep it on the worker. */
export const BIG_BACK_BYTES = 50 * 1024 * 1024;

/** Seconds with one decimal (`12.0s`); a time not recorded counts as none. */
export const secs = (ms = 0): string => `${(ms / 1000).toFixed(1)}s`;

export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

export function conflictLines(conflicts: readonly Conflict[], shown: (path: string) => string = (p) => p): string[] {
  const lines = conflicts
    .slice(0, MAX_CONFLICT_LINES)
    .map((c) =>
      conflictSentence(c.kind, shown(c.path), { ...c, ...(c.saved ? { saved: shown(c.saved) } : {}), ...(c.detail ? { detail: shown(c.detail) } : {}) }),
    );
  const more = conflicts.length - MAX_CONFLICT_LINES;
  if (more > 0) {
    const where = conflicts
      .find((c) => c.saved)
      ?.saved?.split('/')
      .slice(0, 3)
      .join('/');
    lines.push(`and ${more} more conflict${more === 1 ? '' : 's'}${where ? ` (the worker's versions are in ${where})` : ''}`);
  }
  return lines;
}

/**
 * `ran on box: [waited 4.0s, ]sync 0.3s, [deps 20.1s, ]run 12.0s, 3 files back (12 KB), 0 conflicts`, and a hint when
 * much came back.
 */
export function summaryLines(worker: string, t: { syncMs: number; depsMs?: number; runMs: number; waitMs?: number }, back: Applied | undefined): string[] {
  const files = back?.files ?? 0;
  const conflicts = back?.conflicts.length ?? 0;
  const bytes = back && back.bytes > 0 ? ` (${size(back.bytes)})` : '';
  const lines = [
    `ran on ${worker}: ${t.waitMs ? `waited ${secs(t.waitMs)}, ` : ''}sync ${secs(t.syncMs)}, ${t.depsMs === undefined ? '' : `deps ${secs(t.depsMs)}, `}run ${secs(t.runMs)}, ${files} file${files === 1 ? '' : 's'} back${bytes}, ${conflicts} conflict${conflicts === 1 ? '' : 's'}`,
  ];
  if (back && back.bytes > BIG_BACK_BYTES) {
    const [folder, most] = [...back.byFolder].sort((a, b) => b[1] - a[1])[0] ?? ['.', 0];
    lines.push(`${size(most)} of it in ${folder}/; if that is only needed on the worker, add "${folder}/" to sync.keepOnWorker in the config`);
  }
  return lines;
}

/** One line for the files kept on the worker (decide.ts keptSentence), per platform they are for. */
export function keptLines(kept: ReadonlyArray<{ platform: string }>): string[] {
  const by = new Map<string, number>();
  for (const k of kept) by.set(k.platform, (by.get(k.platform) ?? 0) + 1);
  return [...by].map(([platform, n]) => keptSentence(n, platform));
}

/**
 * A run's times on a worker from what the worker said (`t` in performance.now() time: the command asked for at
 * `asked`, its end or stop seen at `end`): the install, and the command from when it started there, so a run
 * stopped by --timeout after 2 s logs 2 s (docs/workers.md `sparehand log`). runMs is absent when it never started.
 */
export function timesOnWorker(
  r: Pick<ExecResult, 'status' | 'depsSeconds' | 'phaseAt'>,
  t: { asked: number; end: number },
): { runMs?: number; depsMs?: number } {
  const { deps, run } = r.phaseAt ?? {};
  const depsMs = r.depsSeconds !== undefined ? r.depsSeconds * 1000 : deps === undefined ? undefined : Math.max(0, (run ?? t.end) - deps);
  // Ended and said so: the command's own time (what the summary line has always shown); else from its start there.
  const runMs = r.status !== undefined ? Math.max(0, t.end - t.asked - (depsMs ?? 0)) : run !== undefined ? Math.max(0, t.end - run) : undefined;
  return { ...(runMs === undefined ? {} : { runMs }), ...(depsMs === undefined ? {} : { depsMs }) };
}
