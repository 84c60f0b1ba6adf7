// What a run on a worker says when it ends: one line per conflict (a few, then a count), the summary line.
import { posix } from 'node:path';
import { quote } from 'shell-quote';
import type { Applied, Conflict } from '../sync/apply.js';
import { conflictSentence } from '../sync/decide.js';
import { printable } from '../safe-text.js';
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
  const lines = conflicts.slice(0, MAX_CONFLICT_LINES).map((c) =>
    conflictSentence(c.kind, shown(c.path), {
      ...c,
      ...(c.saved ? { saved: shown(c.saved) } : {}),
      ...(c.detail ? { detail: shown(c.detail) } : {}),
      ...(c.yours ? { yours: shown(c.yours) } : {}),
    }),
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

/** Names of kept files a line shows; the rest are counted. */
const MAX_KEPT_NAMES = 3;

/**
 * The files kept on the worker (native code of its platform: apply.ts), one line per platform they are for: the first
 * few by name, a count of the rest, and the `sparehand worker fetch` that brings them, run from `cwd` (relative to the
 * root: its operands are relative to where it runs). Names come from the worker: printed safely (safe-text.ts), and a
 * name that could not be printed as it is never goes into the command (its folder does, or no operand: all of them).
 */
export function keptLines(kept: ReadonlyArray<{ path: string; platform: string }>, cwd = '.'): string[] {
  const by = new Map<string, string[]>();
  for (const k of kept) by.set(k.platform, [...(by.get(k.platform) ?? []), k.path]);
  return [...by].map(([platform, all]) => {
    const paths = [...all].sort();
    const n = paths.length;
    const one = n === 1;
    const shown = paths.slice(0, MAX_KEPT_NAMES).map(printable).join(', ');
    const more = n > MAX_KEPT_NAMES ? ` and ${n - MAX_KEPT_NAMES} more` : '';
    const it = one ? 'it' : 'them';
    return `${n} ${platform} ${one ? 'binary' : 'binaries'} kept on the worker (${one ? 'it does' : 'they do'} not run here): ${shown}${more}; \`${fetchCommand(paths, cwd)}\` brings ${it}`;
  });
}

/**
 * Files of yours the apply had moved aside (before a delete or a replace) and could not put back, nor keep as a
 * conflict (lib/state/own-folder.ts removeStaging): where they are now, the first few by name. Said after every run
 * that brings files back until you have deleted them.
 */
export function yoursLine(paths: readonly string[]): string | undefined {
  if (paths.length === 0) return undefined;
  const n = paths.length;
  const shown = [...paths].sort().slice(0, MAX_KEPT_NAMES).map(printable).join(', ');
  const more = n > MAX_KEPT_NAMES ? ` and ${n - MAX_KEPT_NAMES} more` : '';
  return `${n === 1 ? 'a file' : `${n} files`} of yours that a run had moved aside could not be put back, and ${n === 1 ? 'is' : 'are'} kept: ${shown}${more} (compare with the project's files, then delete ${n === 1 ? 'it' : 'them'})`;
}

/**
 * The command that brings `paths` (relative to the root) when run in `cwd`: each one when they are few, else the
 * folder holding them all (which brings what else is kept in it too), else all that is kept.
 */
export function fetchCommand(paths: readonly string[], cwd = '.'): string {
  const safe = (p: string) => p !== '' && printable(p) === p;
  let operands: string[] = [];
  if (paths.length <= MAX_KEPT_NAMES && paths.every(safe)) operands = [...paths];
  else {
    const parts = paths.map((p) => p.split('/').slice(0, -1));
    const common: string[] = [];
    for (let i = 0; parts.every((p) => i < p.length && p[i] === parts[0]?.[i]); i++) common.push(parts[0]?.[i] as string);
    if (common.length > 0 && safe(common.join('/'))) operands = [common.join('/')];
  }
  const here = (p: string) => {
    const rel = posix.relative(cwd === '.' ? '' : cwd, p) || '.';
    // An operand that starts with "-" would be read as an option.
    return rel.startsWith('-') ? `./${rel}` : rel;
  };
  return quote(['sparehand', 'worker', 'fetch', ...operands.map(here)]);
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
