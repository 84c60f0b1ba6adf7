// `sparehand agent …`: the group; each subcommand lives in its own file.
import { allAgents } from '../agents/index.js';
import type { Context } from '../context.js';
import { register as registerHook } from './agent-hook.js';
import { register as registerInstall } from './agent-install.js';
import { register as registerStatus } from './agent-status.js';
import { register as registerTest } from './agent-test.js';
import type { SparehandCommand } from './command.js';

export function register(program: SparehandCommand, ctx: Context): void {
  const names = allAgents()
    .slice(0, 3)
    .map((a) => a.name)
    .join(', ');
  const agent = program.command('agent').description(`connect coding tools (${names}, …) to sparehand`);
  registerStatus(agent, ctx);
  registerInstall(agent, ctx);
  registerTest(agent, ctx);
  registerHook(agent, ctx);
}
