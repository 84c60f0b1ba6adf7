// Entry of dist/cli-loader.cjs: loads the bundled CLI with V8's code cache. Importing the unbundled CLI (dozens of
// ES modules) cost ~140 ms per `sparehand run`; the bundle with its cache, a few ms (docs/performance.md).
import { join } from 'node:path';
import { requireWithCodeCache } from './code-cache.js';
import { packagePath } from './package-files.js';
import { cacheDir } from './paths.js';

export function loadCli(): typeof import('./cli.js') {
  const env = process.env;
  const bundle = packagePath('dist/cli.bundle.cjs');
  return requireWithCodeCache(bundle, join(cacheDir({ home: env.HOME || '/', env }), 'v8')) as typeof import('./cli.js');
}
