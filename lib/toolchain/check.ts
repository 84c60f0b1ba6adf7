// `doctor` and `worker check` run inside a project: the project's toolchains, here and on each worker, in the
// same round trip that checks the worker.
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { projectRoot } from '../project-root.js';
import { type WorkerReport, checkWorker, poolFailure } from '../remote/check.js';
import { expandPools } from '../remote/pools.js';
import { versionsHere } from './local.js';
import { type ToolchainRow, compareToolchains, toolchainsOf } from './project.js';

/** Each worker's report (with a line per toolchain that differs from here), and the comparison of all. */
export async function checkWorkersWithToolchains(ctx: Context, workers: readonly Worker[]): Promise<{ reports: WorkerReport[]; toolchains: ToolchainRow[] }> {
  const used = toolchainsOf(projectRoot(ctx.cwd), ctx.cwd);
  const commands = [...new Set(used.map((u) => u.toolchain.version))];
  // A pool is checked pod by pod; one whose pods cannot be listed is one failed report.
  const pools = await expandPools(ctx, workers);
  const [here, checked] = await Promise.all([
    versionsHere(ctx.env, commands),
    Promise.all(pools.workers.map((w) => checkWorker(ctx, w, { versions: commands }))),
  ]);
  const reports = [...checked, ...pools.failed.map((f) => poolFailure(ctx, f.pool, f.error))];
  const answers = new Map(reports.filter((r) => r.versions).map((r) => [r.name, new Map(Object.entries(r.versions ?? {}))]));
  const toolchains = compareToolchains(used, here, answers);
  for (const r of reports) {
    const mine = toolchains.flatMap((t) => t.problems.filter((p) => p.startsWith(`${r.name} `)));
    if (mine.length === 0) continue;
    r.problems.push(...mine);
    r.ok = false;
    r.hint ??= 'install the same major version on the worker (a version manager in its ~/.profile is found: sparehand uses the login PATH)';
  }
  return { reports, toolchains };
}

/** One line per toolchain, for people: `ok  toolchain node (package.json): here 20.11.1, box 20.11.1`. */
export function toolchainLine(t: ToolchainRow): string {
  const where = [`here ${t.here ?? 'MISSING'}`, ...Object.entries(t.workers).map(([w, v]) => `${w} ${v ?? 'MISSING'}`)].join(', ');
  const wanted = t.wanted ? ` (${t.wanted.file}: ${t.wanted.version})` : '';
  return `${t.problems.length ? 'BAD' : 'ok '} toolchain ${t.id} (${t.because})${wanted}: ${where}${t.problems.length ? ` — ${t.problems.join('; ')}` : ''}`;
}
