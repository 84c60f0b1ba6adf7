// `sparehand log [--json] [-n N]`: this machine's finished runs, newest last, and what today took off it.
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { secs } from '../run/report.js';
import { type LogEntry, readLog } from '../run/run-log.js';
import type { SparehandCommand } from './command.js';

/** Today's runs (this machine's day): how many, where, and the command time the workers took. */
function today(entries: readonly LogEntry[], now = new Date()): { runs: number; onWorkers: number; here: number; workerMs: number } {
  const day = now.toDateString();
  // Runs: a command that ran (here or there), not a refusal or a stop before it started.
  const mine = entries.filter((e) => new Date(e.start).toDateString() === day && e.refused === undefined && e.stopped === undefined);
  const away = mine.filter((e) => e.where !== 'here');
  return {
    runs: mine.length,
    onWorkers: away.length,
    here: mine.length - away.length,
    workerMs: away.reduce((t, e) => t + (e.runMs ?? 0) + (e.depsMs ?? 0), 0),
  };
}

/** How a warm run sent the project (lib/send/warm-send.ts), when it did not use rsync. */
const SENT: Record<string, string> = { skipped: ' (nothing changed, nothing sent)', own: ' (the few changed files sent in the session)' };

function formatEntry(e: LogEntry): string {
  const when = new Date(e.start).toLocaleString('sv-SE').slice(0, 16);
  if (e.refused !== undefined) return `${when}  refused (${e.refused})  exit ${e.exit}  ${e.project}  ${e.command}`;
  if (e.stopped !== undefined)
    return `${when}  stopped${e.where === 'none' ? '' : ` on ${e.where}`} (${e.stopped})  exit ${e.exit}  ${e.project}  ${e.command}`;
  // ssh goes unsaid, as in `worker check`: another transport is named.
  const where = e.where === 'here' ? `here (${e.why ?? 'local'})` : `${e.where}${e.transport && e.transport !== 'ssh' ? ` over ${e.transport}` : ''}`;
  const times =
    e.where === 'here'
      ? `total ${secs(e.totalMs)}`
      : `sync ${secs(e.syncMs)}${SENT[e.sent ?? ''] ?? ''}${e.depsMs ? `, deps ${secs(e.depsMs)}` : ''}, run ${secs(e.runMs)}`;
  const back = e.where === 'here' ? '' : `, ${e.files ?? 0} back, ${e.conflicts ?? 0} conflict${e.conflicts === 1 ? '' : 's'}`;
  const waited = e.waitMs ? `, waited ${secs(e.waitMs)}` : '';
  return `${when}  ${where}  exit ${e.exit}  ${times}${waited}${back}  ${e.project}  ${e.command}`;
}

/** The entries' lines, the shards of one split run together under one line, in shard order (lib/split/). */
function grouped(runs: readonly LogEntry[]): string[] {
  const lines: string[] = [];
  const shown = new Set<string>();
  for (const e of runs) {
    if (!e.split) {
      lines.push(formatEntry(e));
      continue;
    }
    const { id } = e.split;
    if (shown.has(id)) continue;
    shown.add(id);
    const shards = runs.filter((r) => r.split?.id === id).sort((a, b) => (a.split?.shard ?? 0) - (b.split?.shard ?? 0));
    const worst = shards.reduce((w, r) => Math.max(w, r.exit), 0);
    lines.push(`split ${id}: ${e.split.of} shards, exit ${worst}`);
    for (const r of shards) lines.push(`  shard ${r.split?.shard}/${r.split?.of}  ${formatEntry(r)}`);
  }
  return lines;
}

export function register(program: SparehandCommand, ctx: Context): void {
  program
    .command('log')
    .description("this machine's finished runs: when, where, command, exit status, times, files back")
    .option('--json', 'one JSON document: {"runs": [...], "today": {...}}')
    .option('-n <count>', 'the last COUNT runs (default 20)')
    .action((o: { json?: boolean; n?: string }) => {
      const n = o.n === undefined ? 20 : Number(o.n);
      if (!Number.isInteger(n) || n < 1) throw new SparehandError('USAGE', `-n must be a whole number above 0, got "${o.n}"`);
      const all = readLog(ctx);
      const runs = all.slice(-n);
      const t = today(all);
      if (o.json) ctx.stdout.write(`${JSON.stringify({ runs, today: t }, null, 2)}\n`);
      else {
        for (const line of grouped(runs)) ctx.stdout.write(`${line}\n`);
        ctx.stdout.write(
          `today: ${t.runs} run${t.runs === 1 ? '' : 's'}, ${t.onWorkers} on workers (${secs(t.workerMs)} of commands off this machine), ${t.here} here\n`,
        );
      }
      return 0;
    });
}
