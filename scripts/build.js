#!/usr/bin/env node
// Builds dist/: tsc for the CLI, plus one bundled, minified file for the hook's hot path
// (bundling zod and the classifier into one file keeps the hook's start close to bare Node).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});
const esbuild = await import('esbuild');
await esbuild.build({
  entryPoints: [join(root, 'lib/hook/entry.ts')],
  outfile: join(root, 'dist/hook.bundle.js'),
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  // CommonJS dependencies call require() for Node built-ins: give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
