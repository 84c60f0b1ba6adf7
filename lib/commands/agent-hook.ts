// `sparehand agent hook --for TOOL`: the hook itself (the bin fast path runs the same code, bundled).
import type { Command } from 'commander';
import { AGENTS, isAgentId } from '../agents/index.js';
import type { Context } from '../context.js';
import { hookMain } from '../hook/main.js';

export function register(agent: Command, ctx: Context, setExit: (n: number) => void): void {
  agent
    .command('hook')
    .description("the hook a coding tool runs: payload on stdin, answer in the tool's own form (always fails open)")
    .requiredOption('--for <tool>', 'which tool is calling')
    .action(async (opts: { for: string }) => {
      const leave = (id: string) => (isAgentId(id) ? (AGENTS[id]!.leaveStdout ?? '') : '');
      setExit(await hookMain(ctx, opts.for, { full: () => import('../hook/answer.js'), leave }));
    });
}
