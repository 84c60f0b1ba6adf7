// `sparehand agent status` (what is connected where, checked against what) and `agent list` (what sparehand knows).
import { allAgents } from '../agents/index.js';
import { configProblem } from '../config.js';
import { type Context, tilde } from '../context.js';
import { projectRoot } from '../project-root.js';
import { type AgentStatus, type ScopeStatus, agentStatus } from '../checks/status.js';
import { VERSION } from '../version.js';
import { configuredWants } from '../sandbox/explain.js';
import { reportLine } from '../sandbox/report.js';
import type { SparehandCommand } from './command.js';

function scopeLine(ctx: Context, s: ScopeStatus, inside?: string): string {
  const hook =
    inside !== undefined
      ? `installed (${tilde(ctx, inside)}/)`
      : s.files.length === 0
        ? 'no hook at this level'
        : `${s.installed ? 'installed' : 'not installed'} (${s.files.map((f) => tilde(ctx, f)).join(', ')})`;
  const notes = s.notes.length ? `; note ${s.notes.some((n) => n.present) ? 'present' : 'absent'} (${s.notes.map((n) => tilde(ctx, n.file)).join(', ')})` : '';
  const trust = s.trust ? `; trust: ${s.trust}` : '';
  return `${hook}${notes}${trust}`;
}

function print(ctx: Context, list: AgentStatus[], project: string): void {
  const w = (s: string) => ctx.stdout.write(`${s}\n`);
  w(`sparehand ${VERSION}; project: ${tilde(ctx, project)}`);
  for (const a of list) {
    w('');
    w(`${a.id} (${a.name}): ${a.connection}`);
    if (a.connection === 'none') continue;
    w(`  user:     ${scopeLine(ctx, a.user, a.answers?.by === 'inside' ? a.answers.folder : undefined)}`);
    if (a.answers) {
      const by = { inside: `${a.answers.name.replace(/^an? /, 'the ')} in ${tilde(ctx, a.answers.folder)}/`, settings: 'the settings hook', none: 'nothing' }[
        a.answers.by
      ];
      w(`  answers:  ${by} (${a.answers.why})`);
    }
    const same = a.project.files.length > 0 && a.project.files.every((f, i) => f === a.user.files[i]);
    w(`  project:  ${same ? 'the same files as user level' : scopeLine(ctx, a.project)}`);
    if (a.binary) w(`  program:  ${a.binary.path ? `${a.binary.path}${a.binary.version ? ` (${a.binary.version})` : ''}` : `${a.binary.name} not on PATH`}`);
    w(`  checked:  against ${a.documented ?? 'documentation'}, sources read ${a.sourcesRead ?? '?'}`);
    w(
      `  confirmed: ${a.confirmed.length ? a.confirmed.map((c) => `${c.package}@${c.version} (${c.date})`).join(', ') : 'documentation only, not seen in the real program'}`,
    );
    if (a.sandbox) w(`  sandbox:  ${reportLine(a.sandbox)}${a.sandbox.checked === 'documentation' ? ' (from its documentation)' : ''}`);
  }
}

export function register(agent: SparehandCommand, ctx: Context): void {
  agent
    .command('status')
    .description(
      'per tool: connection, installed where (user and this project), its program and version, what the connection was checked against and when, and trust',
    )
    .option('--json', 'one JSON document')
    .action(async (opts: { json?: boolean }) => {
      const project = projectRoot(ctx.cwd);
      const base = { home: ctx.home, env: ctx.env, project };
      const wants = configuredWants(ctx);
      const list = await Promise.all(allAgents().map((a) => agentStatus(a, base, wants, (p) => tilde(ctx, p))));
      const config = configProblem(ctx);
      if (opts.json) ctx.stdout.write(`${JSON.stringify({ version: VERSION, project, ...(config ? { config } : {}), agents: list }, null, 2)}\n`);
      else {
        if (config) ctx.stdout.write(`config: ${config}\n`);
        print(ctx, list, project);
      }
      return 0;
    });
  agent
    .command('list')
    .description('the tools sparehand knows: id, name, how it connects and why')
    .option('--json', 'one JSON document')
    .action((opts: { json?: boolean }) => {
      const rows = allAgents().map((a) => ({ id: a.id, name: a.name, connection: a.connection, why: a.why }));
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ agents: rows }, null, 2)}\n`);
        return 0;
      }
      const width = Math.max(...rows.map((r) => r.id.length));
      for (const r of rows) ctx.stdout.write(`${r.id.padEnd(width)}  ${r.connection.padEnd(8)}  ${r.name}: ${r.why}\n`);
      return 0;
    });
}
