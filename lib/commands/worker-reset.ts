// `sparehand worker reset [NAME] [--all]`: wipe this project's copies on the workers (and, --all, their package caches).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { gitRoot } from '../project-root.js';
import { findWorker } from '../remote/workers.js';
import { PACKAGE_CACHE_OWNERS, resetCaches, resetProject } from '../run/reset.js';
import { notAProject } from '../run/sendable.js';
import { printable } from '../safe-text.js';
import type { SparehandCommand } from './command.js';
import { podsToo } from './worker-pods.js';

export function register(worker: SparehandCommand, ctx: Context): void {
  worker
    .command('reset')
    .description(
      "wipe this project's copies on every worker (or NAME): its dependencies, build caches and records there, and the installs remembered to have failed there; the next run starts afresh",
    )
    .argument('[name]', 'only this worker')
    .option('--project <dir>', 'the project (default: the one you are in)')
    .option('--all', `also remove the package managers' caches on the worker (${PACKAGE_CACHE_OWNERS}), which installs there use and a reset keeps`)
    .action(async (name: string | undefined, o: { project?: string; all?: boolean }) => {
      const config = loadConfig(ctx, (l) => say(ctx, l));
      const workers = name ? [findWorker(config, name)] : (config.workers ?? []);
      if (workers.length === 0) throw new SparehandError('WORKER', 'no worker configured', { hint: 'add one with `sparehand worker add NAME user@host`' });
      const dir = resolve(ctx.cwd, o.project ?? '.');
      if (!existsSync(dir)) throw new SparehandError('USAGE', `no folder ${dir}`, { hint: 'give --project the folder of a project' });
      const root = gitRoot(dir) ?? dir;
      const shown = printable(root);
      // No run sends `/` or the home folder (run/sendable.ts): no worker has copies of it.
      const none = notAProject(root, ctx.home);
      if (none) {
        say(ctx, `nothing to reset: ${shown}: ${none}, and no run sends it to a worker; run this in a project, or give --project DIR`);
        return 0;
      }
      for (const w of await podsToo(ctx, workers)) {
        const r = await resetProject(ctx, w, root);
        const forgot = r.forgot > 0 ? `; forgot this machine's ${r.forgot} record${r.forgot === 1 ? '' : 's'} of them` : '';
        say(
          ctx,
          r.removed
            ? `${w.name}: removed ${printable(r.there)} (the copies of ${shown})${forgot}`
            : `${w.name}: no copies of ${shown} there (no ${printable(r.there)}), nothing removed${forgot}`,
        );
        if (!o.all) continue;
        const caches = await resetCaches(ctx, w);
        say(ctx, caches.length > 0 ? `${w.name}: removed the package managers' caches ${caches.join(', ')}` : `${w.name}: no package manager caches there`);
      }
      if (!o.all) say(ctx, `kept the package managers' caches on the worker (${PACKAGE_CACHE_OWNERS}): \`worker reset --all\` removes them too`);
      return 0;
    });
}
