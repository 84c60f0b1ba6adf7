// `sparehand agent hook --for TOOL`: the hook itself (the bin fast path runs the same code, bundled).
import { AGENTS, isAgentId } from '../agents/index.js';
import type { Context } from '../context.js';
import { hookMain } from '../hook/main.js';
import type { SparehandCommand } from './command.js';

export function register(agent: SparehandCommand, ctx: Context): void {
  agent
    .command('hook')
    .description("the hook a coding tool runs: payload on stdin, answer in the tool's own form (always fails open)")
    .requiredOption('--for <tool>', 'which tool is calling')
    .action(async (opts: { for: string }) => {
      const leave = (id: string) => (isAgentId(id) ? (AGENTS[id].leaveStdout ?? '') : '');
      return await hookMain(ctx, opts.for, { full: () => import('../hook/answer.js'), leave });
    });
}
