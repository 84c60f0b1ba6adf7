// Files shipped in the package (bin/, docs/, dist/), found from this module: it sits one folder below the package
// root, in lib/ (sources), dist/ (compiled) or as part of a bundle in dist/.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageUrl = (path: string): URL => new URL(`../${path}`, import.meta.url);

/**
 * The same file as a path. In a CommonJS bundle (and under vitest) from `__dirname`, without the round trip through a
 * URL: the first URL made in a process costs the hook's heavy path about half a millisecond (docs/performance.md).
 */
export const packagePath = (path: string): string => (typeof __dirname === 'string' ? join(__dirname, '..', path) : fileURLToPath(packageUrl(path)));
