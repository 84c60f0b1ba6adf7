// `sparehand doctor`: is everything sparehand needs here and on the workers?
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import type { Context } from '../context.js';
import { isSparehandError } from '../errors.js';
import { type WorkerReport, checkWorker } from '../remote/check.js';
import { capture } from '../remote/connection.js';
import { formatReport } from './worker.js';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * INSTALLED HOOKS — placeholder for the lead to wire to the agent registry (lib/agents): one check per coding
 * tool whose hook is installed (is it still in the settings file, does its command still point at this
 * sparehand). Returns an empty list until then.
 */
export async function installedHookChecks(_ctx: Context): Promise<DoctorCheck[]> {
  return [];
}

/** A local program and its version line. */
async function program(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  try {
    const r = await capture(name, args, { env });
    const line = `${r.stdout}\n${r.stderr}`.split('\n').find((l) => l.trim()) ?? '';
    return { name, ok: r.code === 0, detail: line.trim() };
  } catch (e) {
    return { name, ok: false, detail: `not found (${(e as Error).message}); install it` };
  }
}

export async function doctor(ctx: Context): Promise<{ ok: boolean; checks: DoctorCheck[]; workers: WorkerReport[] }> {
  const checks = [await program('ssh', ['-V'], ctx.env), await program('rsync', ['--version'], ctx.env)];
  let workers: WorkerReport[] = [];
  try {
    const config = loadConfig(ctx);
    const n = config.workers?.length ?? 0;
    checks.push({ name: 'config', ok: true, detail: `${n} worker${n === 1 ? '' : 's'} configured` });
    workers = await Promise.all((config.workers ?? []).map((w) => checkWorker(ctx, w)));
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    checks.push({ name: 'config', ok: false, detail: e.message });
  }
  checks.push(...(await installedHookChecks(ctx)));
  return { ok: checks.every((c) => c.ok) && workers.every((w) => w.ok), checks, workers };
}

export function register(program_: Command, ctx: Context, setExit: (n: number) => void): void {
  program_
    .command('doctor')
    .description('check ssh, rsync, the config, every worker and the installed hooks')
    .option('--json', 'one JSON document')
    .action(async (o: { json?: boolean }) => {
      const r = await doctor(ctx);
      if (o.json) ctx.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      else {
        for (const c of r.checks) ctx.stdout.write(`${c.ok ? 'ok ' : 'BAD'} ${c.name}: ${c.detail}\n`);
        for (const w of r.workers) ctx.stdout.write(`${w.ok ? 'ok ' : 'BAD'} worker ${formatReport(w)}\n`);
      }
      if (!r.ok) setExit(1);
    });
}
