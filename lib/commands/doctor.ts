// `sparehand doctor`: is everything sparehand needs here and on the workers?
import type { SparehandCommand } from './command.js';
import { allAgents } from '../agents/index.js';
import { type Config, configProblem, readConfig } from '../config.js';
import { localSlotCount } from '../run/local-slots.js';
import { gentlePrefix, gentleWords } from '../run/gentle.js';
import type { Context } from '../context.js';
import { isSparehandError } from '../errors.js';
import { checkInstalled } from '../checks/hook-check.js';
import type { WorkerReport } from '../remote/check.js';
import { checkWorkersWithToolchains, toolchainLine } from '../toolchain/check.js';
import type { ToolchainRow } from '../toolchain/project.js';
import { rsyncLabel, rsyncNotes } from '../remote/rsync-flavour.js';
import { rsyncHere } from '../remote/rsync-found.js';
import { permissionParityNotes } from '../agents/platform-notes.js';
import { capture } from '../process.js';
import { dependencyChecks } from './doctor-deps.js';
import { formatReport } from './worker-check.js';
import { gitRoot, projectRoot } from '../project-root.js';
import { serviceSignsLine } from '../run/service-signs.js';
import { servicesFor, workerServicesFor } from '../run/services.js';
import { heldBackHere } from '../run/held-back-here.js';
import { tilde } from '../context.js';
import { toolInstalled } from '../install/engine.js';
import { workspace } from '../install/workspace.js';
import { configuredWants } from '../sandbox/explain.js';
import { reportLine, sandboxReport } from '../sandbox/report.js';
import { PLATFORM_VAR, platformHere } from '../platform/here.js';
import { platformLabel } from '../platform/platform.js';
import type { DoctorCheck } from './doctor-check.js';

/**
 * One check per coding tool and level where a hook is installed: the installed command is run as the tool
 * would run it (agent test), with a heavy command that must come back rewritten or refused.
 */
export async function installedHookChecks(ctx: Context): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  for (const agent of allAgents()) {
    const { installed } = await checkInstalled(agent, ctx, { commands: ['npm test'], heavyFirst: true });
    for (const r of installed) {
      const name = `hook: ${agent.id} (${r.scope})`;
      checks.push(
        r.status === 'working'
          ? { name, ok: true, detail: `${r.file}: working` }
          : { name, ok: false, detail: `${r.file}: ${r.problem ?? r.status}${r.fix ? `; fix: ${r.fix}` : ''}` },
      );
      for (const w of r.warnings ?? []) checks.push({ name, ok: true, warning: true, detail: w });
    }
  }
  return checks;
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

/** This machine's rsync: what it is and, short of GNU rsync 3, what that changes (rsync-flavour.ts). */
async function rsyncCheck(ctx: Context): Promise<DoctorCheck> {
  try {
    const info = await rsyncHere(ctx);
    return { name: 'rsync', ok: true, detail: [`${rsyncLabel(info)} (${info.path})`, ...rsyncNotes(info, 'here')].join('; ') };
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return { name: 'rsync', ok: false, detail: `${e.message}; ${e.hint}` };
  }
}

/** This machine's platform (what the workers' builds are compared with), and where sparehand got it. */
function platformCheck(ctx: Context): DoctorCheck {
  const here = platformHere(ctx.env);
  const from = here.from === 'detected' ? 'detected' : `from ${PLATFORM_VAR}, not detected`;
  const detail = `this machine is ${platformLabel(here.platform, { libc: true })} (${from})${here.problem ? `; ${here.problem}` : ''}`;
  return { name: 'platform', ok: here.problem === undefined, detail };
}

/** How many heavy commands run here at once and why, and how gently they start (local-slots.ts, gentle.ts). */
function localSlotsCheck(ctx: Context, config: Config): DoctorCheck {
  const { count, why } = localSlotCount(config);
  const gentle = gentleWords(gentlePrefix(config, ctx.env.PATH));
  const slots = count === 0 ? 'off' : `${count} at once`;
  return { name: 'local slots', ok: true, detail: `${slots} (${why}); runs here are ${gentle}` };
}

/** The project here and the config, for the checks that need both; nothing outside a project or with a config that
 * does not read (its own check says why). */
function projectAndConfig(ctx: Context): { root: string; config: Config } | undefined {
  const root = gitRoot(ctx.cwd);
  if (root === undefined) return undefined;
  try {
    return { root, config: readConfig(ctx).config };
  } catch {
    return undefined;
  }
}

/** In a project: the services on this machine it seems to need and the config does not forward (service-signs.ts). */
function servicesCheck(ctx: Context): DoctorCheck | undefined {
  const { root, config } = projectAndConfig(ctx) ?? {};
  if (root === undefined || config === undefined) return undefined;
  const line = serviceSignsLine(ctx, config, root);
  const forwarded = servicesFor(ctx, config, root).map((f) => f.port);
  const started = workerServicesFor(ctx, config, root).map((w) => `${w.name} (${w.port})`);
  if (line) return { name: 'services', ok: true, detail: line };
  const said = [
    ...(forwarded.length ? [`forwarded to the worker for each run: ${forwarded.join(', ')} (each request crosses ssh)`] : []),
    ...(started.length ? [`started on the worker for each run: ${started.join(', ')}`] : []),
  ];
  return said.length ? { name: 'services', ok: true, detail: said.join('; ') } : undefined;
}

/** In a project: the files held back from the worker for what they hold, with the setting that sends them (held-back.ts). */
async function heldBackCheck(ctx: Context): Promise<DoctorCheck | undefined> {
  const { root, config } = projectAndConfig(ctx) ?? {};
  if (root === undefined || config === undefined) return undefined;
  const { line } = await heldBackHere(ctx, config, root);
  return line ? { name: 'held back', ok: true, warning: true, detail: line } : undefined;
}

/**
 * Per installed tool with a sandbox of its own: whether it is on and whether a run inside it offloads. Not a failure
 * when the user keeps it closed; a failure when --sandbox-access widened it and it no longer covers the workers.
 */
async function sandboxChecks(ctx: Context): Promise<DoctorCheck[]> {
  const base = { home: ctx.home, env: ctx.env, project: projectRoot(ctx.cwd) };
  const wants = configuredWants(ctx);
  const checks: DoctorCheck[] = [];
  for (const agent of allAgents()) {
    if (!agent.sandbox) continue;
    const ws = workspace();
    if (!(await toolInstalled(ws, agent, base, 'user')) && !(await toolInstalled(ws, agent, base, 'project'))) continue;
    const r = (await sandboxReport(agent, base, wants, (p) => tilde(ctx, p)))!;
    checks.push({ name: `sandbox: ${agent.id}`, ok: r.offloads !== false || !r.widened, detail: reportLine(r) });
  }
  return checks;
}

export async function doctor(ctx: Context): Promise<{ ok: boolean; checks: DoctorCheck[]; workers: WorkerReport[]; toolchains: ToolchainRow[] }> {
  const checks = [await program('ssh', ['-V'], ctx.env), await rsyncCheck(ctx)];
  for (const note of permissionParityNotes(ctx.env)) checks.push({ name: 'permission parity', ok: true, detail: note });
  checks.push(platformCheck(ctx));
  let workers: WorkerReport[] = [];
  let toolchains: ToolchainRow[] = [];
  try {
    const { config, unknown } = readConfig(ctx);
    const n = config.workers?.length ?? 0;
    const ignored = unknown.length ? `; unknown fields (ignored): ${unknown.join(', ')}` : '';
    checks.push({ name: 'config', ok: true, detail: `${n} worker${n === 1 ? '' : 's'} configured${ignored}` });
    // Not a failure (--or-local is made for it), but no surprise either: every run happens on this machine.
    if (n === 0)
      checks.push({ name: 'workers', ok: true, detail: 'none: every run happens here, on this machine; add one with `sparehand worker add NAME user@host`' });
    checks.push(localSlotsCheck(ctx, config));
    ({ reports: workers, toolchains } = await checkWorkersWithToolchains(ctx, config.workers ?? []));
    checks.push(...dependencyChecks(ctx, config));
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    // First, since everything after it (hooks, runs) goes by the config: the file, its line, and what is used meanwhile.
    checks.unshift({ name: 'config', ok: false, detail: configProblem(ctx) ?? e.message });
  }
  const services = servicesCheck(ctx);
  if (services) checks.push(services);
  const held = await heldBackCheck(ctx);
  if (held) checks.push(held);
  checks.push(...(await installedHookChecks(ctx)));
  checks.push(...(await sandboxChecks(ctx)));
  const ok = checks.every((c) => c.ok) && workers.every((w) => w.ok) && toolchains.every((t) => t.problems.length === 0);
  return { ok, checks, workers, toolchains };
}

export function register(program_: SparehandCommand, ctx: Context): void {
  program_
    .command('doctor')
    .description(
      'check ssh, rsync, the config, every worker, the installed hooks and (in a project) its toolchains here and there and what would make its dependencies differ there',
    )
    .option('--json', 'one JSON document')
    .action(async (o: { json?: boolean }) => {
      const r = await doctor(ctx);
      if (o.json) ctx.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      else {
        for (const c of r.checks) ctx.stdout.write(`${c.ok ? (c.warning ? 'warn' : 'ok ') : 'BAD'} ${c.name}: ${c.detail}\n`);
        for (const w of r.workers) ctx.stdout.write(`${w.ok ? 'ok ' : 'BAD'} worker ${formatReport(w)}\n`);
        for (const t of r.toolchains) ctx.stdout.write(`${toolchainLine(t)}\n`);
      }
      return r.ok ? 0 : 1;
    });
}
