// `sparehand status [--json]`: what runs on each worker now, from this machine or any other sharing it.
import { type Config, loadConfig } from '../config.js';
import { type SlotRun, localSlotCount, peekSlots } from '../run/local-slots.js';
import type { Context } from '../context.js';
import { type WorkerStatus, poolStatus, workerStatus } from '../remote/status.js';
import { expandPools } from '../remote/pools.js';
import { transportLabel } from '../remote/transport.js';
import { type Platform, parsePlatform, platformLabel, platformWords as words, samePlatform } from '../platform/platform.js';
import { platformHere } from '../platform/here.js';
import { printable } from '../safe-text.js';
import type { SparehandCommand } from './command.js';

const ago = (s: number): string => (s < 90 ? `${s}s` : s < 5400 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`);
const short = (s: string, n = 60): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The worker's platform as last seen, and this machine's beside it where they differ: `, Linux x86-64 (glibc); this machine: macOS arm64`. */
function platformWords(w: WorkerStatus, here: Platform): string {
  const seen = w.platform ? parsePlatform(w.platform) : undefined;
  if (!seen) return '';
  return `, ${platformLabel(seen, { libc: true })}${samePlatform(seen, here) ? '' : `; this machine: ${platformLabel(here, { libc: true })}`}`;
}

function formatStatus(w: WorkerStatus, here: Platform): string {
  // Plain ssh shows its destination; a proxy or another transport is named (transport.ts transportLabel).
  const over = w.transport.kind === 'ssh' && !w.transport.proxy ? w.destination : transportLabel(w.transport);
  if (!w.reachable) return `${w.name} (${over}${platformWords(w, here)}): unreachable: ${w.problem}`;
  const lines = [`${w.name} (${over}${platformWords(w, here)}): ${w.slots - w.free} of ${w.slots} slot${w.slots === 1 ? '' : 's'} busy`];
  for (let slot = 0; slot < w.slots; slot++) {
    const r = w.runs.find((x) => x.slot === slot);
    // While it installs, that is what the slot is doing (the command has not started).
    const what = r?.doing ? `${printable(r.doing)}, for ${short(r.command)}` : r && short(r.command);
    lines.push(r ? `  slot ${slot}: ${what} — ${r.project} on ${r.machine} (${r.user}), for ${ago(r.seconds)}` : `  slot ${slot}: free`);
  }
  return lines.join('\n');
}

/** This machine's local slots and its queue: what runs here now through sparehand, and what waits. */
async function localStatus(ctx: Context, config: Config) {
  const { count, why } = localSlotCount(config);
  const seen = await peekSlots(ctx, count);
  const now = Date.now();
  const since = (r: SlotRun) => Math.max(0, Math.round((now - Date.parse(r.since)) / 1000));
  return {
    slots: count,
    why,
    ...(seen === undefined ? { problem: 'perl cannot read the slots here' } : {}),
    busy: (seen?.held ?? []).map((r) => ({ slot: r.slot, pid: r.pid, project: r.project, command: r.command, seconds: since(r) })),
    waiting: (seen?.waiting ?? []).map((r) => ({ pid: r.pid, project: r.project, command: r.command, seconds: since(r), here: r.here })),
  };
}

function formatLocal(l: Awaited<ReturnType<typeof localStatus>>): string {
  if (l.slots === 0) return `here: no local slots (${l.why})`;
  const lines = [
    `here: ${l.busy.length} of ${l.slots} local slot${l.slots === 1 ? '' : 's'} busy, ${l.waiting.length} waiting${l.problem ? ` (${l.problem})` : ''}`,
  ];
  for (let slot = 0; slot < l.slots; slot++) {
    const r = l.busy.find((x) => x.slot === slot);
    lines.push(r ? `  slot ${slot}: ${short(r.command)} — ${r.project} (pid ${r.pid}), for ${ago(r.seconds)}` : `  slot ${slot}: free`);
  }
  for (const [i, r] of l.waiting.entries())
    lines.push(`  waiting ${i + 1}: ${short(r.command)} — ${r.project} (pid ${r.pid}), for ${ago(r.seconds)}${r.here ? '' : ', for a worker only'}`);
  return lines.join('\n');
}

export function register(program: SparehandCommand, ctx: Context): void {
  program
    .command('status')
    .description('runs in progress on every worker (from any machine) and here, slots free and busy, runs waiting; exits 1 when a worker cannot be reached')
    .option('--json', 'one JSON document: {"workers": [...], "here": {"platform": ..., "local": {"slots", "busy", "waiting"}}}')
    .action(async (o: { json?: boolean }) => {
      const config = loadConfig(ctx);
      const pools = await expandPools(ctx, config.workers ?? []);
      const [asked, local] = await Promise.all([Promise.all(pools.workers.map((w) => workerStatus(ctx, w))), localStatus(ctx, config)]);
      const workers = [...asked, ...pools.failed.map((f) => poolStatus(ctx, f.pool, f.error.message))];
      const here = platformHere(ctx.env).platform;
      if (o.json) ctx.stdout.write(`${JSON.stringify({ workers, here: { platform: words(here), local } }, null, 2)}\n`);
      else {
        if (workers.length === 0) ctx.stdout.write('no worker configured; add one with `sparehand worker add NAME user@host`\n');
        else for (const w of workers) ctx.stdout.write(`${formatStatus(w, here)}\n`);
        ctx.stdout.write(`${formatLocal(local)}\n`);
      }
      // A worker that cannot be reached is a failure a script must see (its runs would go elsewhere, or nowhere).
      return workers.some((w) => !w.reachable) ? 1 : 0;
    });
}
