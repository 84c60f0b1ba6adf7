// Entry of the bundled hook (dist/hook.bundle.cjs): no commander, no CLI, just the hot path. CommonJS, because an ES
// module entry alone costs a quarter of a bare Node start (docs/performance.md). The full path is the bundle that
// scripts/build.js writes beside this one, loaded with V8's code cache.
import { join } from 'node:path';
import { processContext } from '../context.js';
import { packagePath } from '../package-files.js';
import { cacheDir } from '../paths.js';
import { type HookPaths, hookMain } from './main.js';

/** Per tool, what "leave alone" prints; set at build time from the registry (scripts/build.js). */
declare const __SPAREHAND_LEAVE__: Record<string, string>;

const args = process.argv.slice(2);
const i = args.indexOf('--for');
const agent = i >= 0 ? (args[i + 1] ?? '') : (args.find((a) => a.startsWith('--for='))?.slice(6) ?? '');
const ctx = processContext();
const paths: HookPaths = {
  // The loader itself only when needed: node:vm and the rest it loads would cost the light path too.
  full: async () =>
    (await import('../code-cache.js')).requireWithCodeCache(packagePath('dist/hook-answer.bundle.cjs'), join(cacheDir(ctx), 'v8')) as Awaited<
      ReturnType<HookPaths['full']>
    >,
  leave: (id) => (Object.hasOwn(__SPAREHAND_LEAVE__, id) ? __SPAREHAND_LEAVE__[id]! : ''),
};
hookMain(ctx, agent, paths).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 0;
  },
);
