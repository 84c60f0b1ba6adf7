// `sparehand worker remove NAME`: out of the config, and its shared ssh connection closed.
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { closeConnection } from '../remote/connection.js';
import { CONTROL_PERSIST } from '../remote/ssh-args.js';
import { removeWorker } from '../remote/workers.js';
import { runsOn } from '../run/runs-here.js';
import type { SparehandCommand } from './command.js';

export function register(worker: SparehandCommand, ctx: Context): void {
  worker
    .command('remove')
    .description('remove a worker from the config and close its shared ssh connection (its files on the worker are left alone)')
    .argument('<name>')
    .action(async (name: string) => {
      const removed = await removeWorker(ctx, name);
      // Its shared connection would otherwise stay up for ControlPersist (10 minutes), for nothing.
      const busy = runsOn(ctx, removed);
      const closed = await closeConnection(ctx, removed, { others: loadConfig(ctx).workers ?? [], busy });
      const runs = `${busy} run${busy === 1 ? '' : 's'}`;
      say(
        ctx,
        closed === 'closed'
          ? `removed worker "${name}" and closed its shared ssh connection`
          : closed === 'stopped'
            ? `removed worker "${name}"; its shared ssh connection takes no new session, and ssh ends it ${CONTROL_PERSIST} (its ControlPersist) after the ${runs} of this machine using it end${busy === 1 ? 's' : ''}`
            : closed
              ? `removed worker "${name}"; its shared ssh connection stays up for worker "${closed.sharedWith}", which reaches the same host the same way`
              : `removed worker "${name}"`,
      );
      return 0;
    });
}
