// `sparehand worker check [NAME]`: each worker's latency, programs, disk and slots; in a project, its toolchains.
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { parsePlatform, platformLabel } from '../platform/platform.js';
import type { WorkerReport } from '../remote/check.js';
import { transportLabel } from '../remote/transport.js';
import { findWorker } from '../remote/workers.js';
import { checkWorkersWithToolchains, toolchainLine } from '../toolchain/check.js';
import type { SparehandCommand } from './command.js';

/** One line per worker report, for people. */
export function formatReport(r: WorkerReport): string {
  if (!r.ok && r.connectMs === undefined) return `${r.name}: FAILED: ${r.problems.join('; ')}${r.hint ? `\n  fix: ${r.hint}` : ''}`;
  const gb = r.freeBytes == null ? '?' : `${(r.freeBytes / 1e9).toFixed(1)} GB`;
  const rsyncAt = r.rsyncPath && r.rsyncPath !== 'rsync' ? ` (${r.rsyncPath})` : '';
  const platform = r.platform ? parsePlatform(r.platform) : undefined;
  const head = `${r.name}: ${r.ok ? 'ok' : 'PROBLEM'}: ${platform ? `${platformLabel(platform, { libc: true })}, ` : ''}latency ${r.latencyMs} ms (connect ${r.connectMs} ms), bash ${r.bash ?? 'MISSING'}, rsync ${r.rsync ?? 'MISSING'}${rsyncAt}, perl ${r.perl ?? 'MISSING'}, ${gb} free in ${r.dir}, ${r.freeSlots ?? '?'}/${r.slots} slots free`;
  // Plain ssh to the destination goes unsaid; a proxy or another transport is named.
  const over = r.transport.kind === 'ssh' && !r.transport.proxy ? [] : [`\n  over: ${transportLabel(r.transport)}`];
  const notes = [...over, ...(r.notes ?? []).map((n) => `\n  note: ${n}`)].join('');
  return r.ok ? `${head}${notes}` : `${head}\n  ${r.problems.join('; ')}${r.hint ? `\n  fix: ${r.hint}` : ''}${notes}`;
}

export function register(worker: SparehandCommand, ctx: Context): void {
  worker
    .command('check')
    .description('connect to each worker (or NAME) and report latency, bash, rsync, perl, free disk and slots; in a project, its toolchains there and here')
    .argument('[name]', 'only this worker')
    .option('--json', 'one JSON document')
    .action(async (name: string | undefined, o: { json?: boolean }) => {
      const config = loadConfig(ctx, (l) => say(ctx, l));
      const workers = name ? [findWorker(config, name)] : (config.workers ?? []);
      if (workers.length === 0) throw new SparehandError('WORKER', 'no worker configured', { hint: 'add one with `sparehand worker add NAME user@host`' });
      const { reports, toolchains } = await checkWorkersWithToolchains(ctx, workers);
      if (o.json) ctx.stdout.write(`${JSON.stringify({ workers: reports, toolchains }, null, 2)}\n`);
      else {
        for (const r of reports) ctx.stdout.write(`${formatReport(r)}\n`);
        for (const t of toolchains) ctx.stdout.write(`${toolchainLine(t)}\n`);
      }
      return reports.some((r) => !r.ok) ? 1 : 0;
    });
}
