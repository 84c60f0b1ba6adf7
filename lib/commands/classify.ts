// `sparehand classify [--json] -- COMMAND`: the hook's decision for a command, the rule behind it, and the rewrite.
import { classify, rewriteCommand } from '../classify/index.js';
import { loadConfig } from '../config.js';
import { platformFacts } from '../remote/worker-facts.js';
import { type Context, say } from '../context.js';
import { commandString } from '../run/command-string.js';
import { depthInProject } from '../project-root.js';
import type { SparehandCommand } from './command.js';

/** The `--json` document (field names are stable, see docs/classify.md). */
export interface ClassifyReport {
  command: string;
  heavy: boolean;
  rule: string;
  reason: string;
  rewrite: string | null;
}

export function report(ctx: Context, command: string): ClassifyReport {
  const config = loadConfig(ctx, (l) => say(ctx, l));
  const c = classify(command, config.rules ?? {}, { ...platformFacts(ctx, config.workers ?? []), depth: depthInProject(ctx.cwd) });
  return { command, heavy: c.heavy, rule: c.rule, reason: c.reason, rewrite: c.wrap ? rewriteCommand(c, 'sparehand') : null };
}

export function register(program: SparehandCommand, ctx: Context): void {
  program
    .command('classify')
    .description('show whether a command is heavy (sent to a worker by the hooks), the rule that decided, and the rewrite')
    .option('--json', 'print one JSON document: {command, heavy, rule, reason, rewrite}')
    .argument('<command...>', "one shell string ('cd pkg && npm test') or an argv")
    .action((args: string[], opts: { json?: boolean }) => {
      const r = report(ctx, commandString(args));
      if (opts.json) ctx.stdout.write(`${JSON.stringify(r)}\n`);
      else {
        ctx.stdout.write(`${r.heavy ? 'heavy' : 'not heavy'} (${r.rule})\n${r.reason}\n`);
        if (r.rewrite !== null) ctx.stdout.write(`rewrite: ${r.rewrite}\n`);
      }
      return 0;
    });
}
