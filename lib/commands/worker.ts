// `sparehand worker add|list|check|reset|fetch|remove`: the SSH hosts commands run on; the group, each subcommand in its own file.
import type { Context } from '../context.js';
import type { SparehandCommand } from './command.js';
import { register as registerAdd } from './worker-add.js';
import { register as registerCheck } from './worker-check.js';
import { register as registerFetch } from './worker-fetch.js';
import { register as registerList } from './worker-list.js';
import { register as registerRemove } from './worker-remove.js';
import { register as registerReset } from './worker-reset.js';

export function register(program: SparehandCommand, ctx: Context): void {
  const worker = program.command('worker').description('add, list, check and remove workers (SSH hosts)');
  registerAdd(worker, ctx);
  registerList(worker, ctx);
  registerCheck(worker, ctx);
  registerReset(worker, ctx);
  registerFetch(worker, ctx);
  registerRemove(worker, ctx);
}
