// This machine's finished runs, for `sparehand log`: one JSON line each in the state folder, kept under a size.
// Enough to answer "how much did sparehand take off this machine today?".
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { type Said, appendOwnFile, readOwnFile, writeOwnFile } from '../state/own-file.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

/** What a run fills in as it goes; written to the log when it ends. */
export interface RunOutcome {
  /** A worker's name, or 'here'; `none` when sparehand refused before choosing (then `refused` says why). */
  where: string;
  /** Set when sparehand refused the run before the command started (it never ran): why. */
  refused?: string;
  /** Set when --timeout stopped the run before the command started (it never ran): the line that said so. */
  stopped?: string;
  /** How the worker was reached (lib/remote/transport.ts), for a run on one. */
  transport?: 'ssh' | 'exec';
  /** Why it ran here (no worker, all busy, --local, …). */
  why?: string;
  /** How long it waited for a slot (here or on a worker). */
  waitMs?: number;
  syncMs?: number;
  depsMs?: number;
  runMs?: number;
  files?: number;
  bytes?: number;
  conflicts?: number;
  /** 'skipped': nothing had changed, nothing was sent; 'own': the few files changed went in the run's session, no rsync (lib/send/warm-send.ts). */
  sent?: 'skipped' | 'own';
  /** A shard of a split run (lib/run/shard-mark.ts): its run's id, its number, how many. */
  split?: { id: string; shard: number; of: number };
  /** How the project was looked at before the send: 'watched' only what the watcher said changed (lib/watch/), 'walked' every file. */
  looked?: 'watched' | 'walked';
}

export interface LogEntry extends RunOutcome {
  /** ISO time the run started. */
  start: string;
  project: string;
  command: string;
  exit: number;
  /** The whole run, sync and all (ms). */
  totalMs: number;
}

/** The log is cut to its newer half when it grows past this. */
const MAX_BYTES = 1024 * 1024;

export const logPath = (c: Env): string => join(stateDir(c), 'runs.jsonl');

const TIMES = ['syncMs', 'depsMs', 'runMs', 'totalMs'] as const;

/** The entry with its times in whole milliseconds (timers give fractions no reader wants: 169.63880400000028). */
function rounded<T extends Partial<Record<(typeof TIMES)[number], number>>>(entry: T): T {
  const out = { ...entry };
  for (const k of TIMES) if (typeof out[k] === 'number') out[k] = Math.round(out[k]) as T[typeof k];
  return out;
}

/** Appends one entry (a single write of one line: runs ending at once do not mix their lines). */
export function appendLog(c: Env, entry: LogEntry): void {
  const file = logPath(c);
  try {
    const line = `${JSON.stringify(rounded({ ...entry, command: entry.command.length > 500 ? `${entry.command.slice(0, 499)}…` : entry.command }))}\n`;
    if (!appendOwnFile(c, file, line)) return;
    if (statSync(file).size > MAX_BYTES) {
      const text = readOwnFile(c, file);
      if (text !== undefined) writeOwnFile(c, file, text.slice(text.indexOf('\n', text.length / 2) + 1));
    }
  } catch {
    // The log is a convenience: a run never fails for it.
  }
}

/** Every entry, oldest first (lines that do not parse are skipped). */
export function readLog(c: Env): LogEntry[] {
  return (readOwnFile(c, logPath(c)) ?? '').split('\n').flatMap((line) => {
    if (!line) return [];
    try {
      return [rounded(JSON.parse(line) as LogEntry)];
    } catch {
      return [];
    }
  });
}

/** Whether the log has a run of the project at `root` (a first run says what it sees: run/service-signs.ts). */
export function hasRunOf(c: Env, root: string): boolean {
  return (readOwnFile(c, logPath(c)) ?? '').includes(`"project":${JSON.stringify(root)}`);
}
