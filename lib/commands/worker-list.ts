// `sparehand worker list [--json]`: the configured workers.
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { workerWhere } from '../remote/transport.js';
import { workerDir, workerSlots } from '../remote/workers.js';
import type { SparehandCommand } from './command.js';

export function register(worker: SparehandCommand, ctx: Context): void {
  worker
    .command('list')
    .description('list the configured workers')
    .option('--json', 'one JSON document')
    .action((o: { json?: boolean }) => {
      const workers = (loadConfig(ctx, (l) => say(ctx, l)).workers ?? []).map((w) => ({ ...w, dir: workerDir(w), slots: workerSlots(w) }));
      if (o.json) ctx.stdout.write(`${JSON.stringify({ workers }, null, 2)}\n`);
      else if (workers.length === 0) say(ctx, 'no worker configured; add one with `sparehand worker add NAME user@host`');
      else for (const w of workers) ctx.stdout.write(`${w.name}\t${workerWhere(w)}${w.port ? `:${w.port}` : ''}\t${w.dir}\t${w.slots} slots\n`);
      return 0;
    });
}
