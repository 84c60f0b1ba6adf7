// `sparehand agent test TOOL|all`: runs each installed hook as its tool would and says what the tool will do.
import { configProblem } from '../config.js';
import type { Context } from '../context.js';
import { describeOutcome } from '../checks/decode-answer.js';
import { type CheckResult, EXIT_OF, checkInstalled, checkNote } from '../checks/hook-check.js';
import { TOOL_CHOICES, selectAgents } from '../install/select.js';
import type { SparehandCommand } from './command.js';

const HEAVY = 'npm test';
const LIGHT = 'ls';

/**
 * One exit status per state (EXIT_OF), the worst one tested: broken, then untrusted, then not installed. `all` tests
 * the tools installed somewhere and lists the others: those count only when no tool is installed at all.
 */
function exitStatus(results: readonly CheckResult[], named: boolean): number {
  const counted = named || results.some((r) => r.status !== 'not-installed') ? results.filter((r) => named || r.status !== 'not-installed') : results;
  for (const state of ['broken', 'untrusted', 'not-installed'] as const) if (counted.some((r) => r.status === state)) return EXIT_OF[state];
  return 0;
}

export function register(agent: SparehandCommand, ctx: Context): void {
  agent
    .command('test')
    .description(
      `run each installed hook with a payload in its tool's form (a heavy \`${HEAVY}\` and a light \`${LIGHT}\`, or --command) and say what the tool will do; exit 0 working, 1 broken, 3 not trusted by the tool, 4 not installed`,
    )
    .argument('<tool>', TOOL_CHOICES)
    .option('--command <cmd>', 'test this command instead')
    .option('--json', 'one JSON document')
    .action(async (tool: string, opts: { command?: string; json?: boolean }) => {
      const named = tool !== 'all';
      const results: CheckResult[] = [];
      for (const a of selectAgents(tool)) {
        if (a.install.targets.length === 0) {
          // Connected by a note only: nothing to run, but named on the command line it says whether the note is there.
          if (named && (a.install.notes ?? []).length > 0) results.push(await checkNote(a, ctx));
          continue;
        }
        const commands = opts.command ? [opts.command] : [HEAVY, LIGHT];
        const { installed, user } = await checkInstalled(a, ctx, { commands, heavyFirst: !opts.command });
        results.push(...(installed.length > 0 ? installed : [user]));
      }
      const status = exitStatus(results, named);
      const config = configProblem(ctx);
      if (opts.json) ctx.stdout.write(`${JSON.stringify({ ok: status === 0, ...(config ? { config } : {}), results }, null, 2)}\n`);
      else {
        if (config) ctx.stdout.write(`config: ${config}\n`);
        for (const r of results) {
          ctx.stdout.write(`${r.agent} (${r.scope}): ${r.status === 'not-installed' ? 'not installed' : r.status}${r.file ? ` — ${r.file}` : ''}\n`);
          if (r.answers) ctx.stdout.write(`  answers: ${r.answers}\n`);
          for (const t of r.trials) ctx.stdout.write(`  ${t.command}: ${describeOutcome(t.outcome)}\n`);
          if (r.problem && r.status !== 'not-installed') ctx.stdout.write(`  problem: ${r.problem}\n`);
          for (const w of r.warnings ?? []) ctx.stdout.write(`  warning: ${w}\n`);
          if (r.fix && r.status !== 'working' && (named || r.status !== 'not-installed')) ctx.stdout.write(`  fix: ${r.fix}\n`);
        }
      }
      return status;
    });
}
