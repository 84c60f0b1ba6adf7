// `sparehand worker fetch [PATHS...]`: bring here what the workers keep because it does not run here.
import { mkdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError } from '../errors.js';
import { gitRoot } from '../project-root.js';
import { findWorker } from '../remote/workers.js';
import { fetchKept, keptOutputs } from '../run/kept.js';
import { size } from '../run/report.js';
import { printable } from '../safe-text.js';
import type { SparehandCommand } from './command.js';
import { podsToo } from './worker-pods.js';

export function register(worker: SparehandCommand, ctx: Context): void {
  worker
    .command('fetch')
    .description(
      "bring here what the workers keep because it does not run here (another platform's executables, libraries and object files): all of this project's, or PATHs",
    )
    .argument('[paths...]', 'kept files, or folders holding them (relative to here); none: all of them')
    .option('--worker <name>', 'only from this worker')
    .option('--to <dir>', 'write them under DIR, at their paths in the project (default: at their own paths here)')
    .option('--list', 'only say what the workers keep')
    .option('--json', 'one JSON document')
    .action(async (paths: string[], o: { worker?: string; to?: string; list?: boolean; json?: boolean }) => {
      const config = loadConfig(ctx, (l) => say(ctx, l));
      const workers = await podsToo(ctx, o.worker ? [findWorker(config, o.worker)] : (config.workers ?? []));
      const root = gitRoot(ctx.cwd) ?? ctx.cwd;
      const wanted = paths.map((p) => {
        const rel = relative(root, resolve(ctx.cwd, p)).split(sep).join('/');
        if (rel.startsWith('..') || isAbsolute(rel))
          throw new SparehandError('USAGE', `${p} is not in the project (${root})`, { hint: 'name files or folders of the project you are in' });
        return rel;
      });
      if (o.list) {
        const kept = keptOutputs(ctx, workers, root).filter(
          (k) => wanted.length === 0 || wanted.some((w) => w === '' || k.path === w || k.path.startsWith(`${w}/`)),
        );
        const rows = kept.map((k) => ({ path: k.path, worker: k.worker.name, copy: k.folder, md5: k.hash, keptAt: new Date(k.at).toISOString() }));
        if (o.json) ctx.stdout.write(`${JSON.stringify({ kept: rows }, null, 2)}\n`);
        else if (rows.length === 0) say(ctx, 'no worker keeps anything of this project (what a run keeps there because it does not run here is listed here)');
        else for (const r of rows) ctx.stdout.write(`${printable(r.path)}\t${r.worker}\tcopy ${r.copy}\t${r.keptAt}\n`);
        return 0;
      }
      const to = o.to === undefined ? undefined : resolve(ctx.cwd, o.to);
      if (to !== undefined) mkdirSync(to, { recursive: true });
      const r = await fetchKept(ctx, { workers, root, wanted, ...(to ? { to } : {}) });
      if (o.json) ctx.stdout.write(`${JSON.stringify({ ...r, to: to ?? root }, null, 2)}\n`);
      else {
        const where = (p: string) => printable(to ? relative(ctx.cwd, join(to, p)) || '.' : p);
        for (const f of r.fetched)
          say(
            ctx,
            `fetched ${where(f.path)} from ${f.worker} (${f.what}, ${size(f.size)}${f.changed ? "; it changed in the worker's copy since the run that kept it" : ''})`,
          );
        for (const k of r.skipped) say(ctx, `not fetched: ${printable(k.path)}: ${k.why}`);
        if (r.fetched.length === 0 && r.skipped.length === 0) say(ctx, 'no worker keeps anything of this project: nothing to fetch');
      }
      return r.skipped.length > 0 ? 1 : 0;
    });
}
