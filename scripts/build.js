#!/usr/bin/env node
// Builds dist/: tsc (types and the modules tests import), plus bundled, minified CommonJS files that bin/
// loads: the hook's hot path (no classifier), its full path (registry, zod), and the CLI with its loader.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// From scratch: a file left by an older build (a bundle since renamed) must not be shipped or loaded.
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});
const esbuild = await import('esbuild');
// What "leave alone" prints per tool, from the registry just compiled: the hot path needs it without
// loading the registry (and zod).
const { allAgents } = await import(join(root, 'dist/agents/index.js'));
const leave = Object.fromEntries(allAgents().map((a) => [a.id, a.leaveStdout ?? '']));
const common = {
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  // The shared modules find their files relative to import.meta.url; in a CommonJS bundle that is the bundle.
  define: { 'import.meta.url': '__sparehandUrl', __SPAREHAND_LEAVE__: JSON.stringify(leave) },
  banner: { js: 'var __sparehandUrl = require("node:url").pathToFileURL(__filename).href;' },
};
// Hot path: everything up to "is anything in this payload heavy?". The full path is a second bundle, beside it,
// which lib/hook/entry.ts loads only when it is needed.
await esbuild.build({
  ...common,
  entryPoints: [join(root, 'lib/hook/entry.ts')],
  outfile: join(root, 'dist/hook.bundle.cjs'),
});
await esbuild.build({
  ...common,
  entryPoints: [join(root, 'lib/hook/answer.ts')],
  outfile: join(root, 'dist/hook-answer.bundle.cjs'),
});
// The CLI: one bundle (ES module packages prefer their "module" build: jsonc-parser's UMD one requires files
// at run time), loaded through a small loader that keeps V8's code cache.
await esbuild.build({ ...common, entryPoints: [join(root, 'lib/cli.ts')], outfile: join(root, 'dist/cli.bundle.cjs'), mainFields: ['module', 'main'] });
await esbuild.build({ ...common, entryPoints: [join(root, 'lib/cli-loader.ts')], outfile: join(root, 'dist/cli-loader.cjs') });
// ssh's ProxyCommand inside a sandbox whose only way out is a proxy: started once per connection, so on its own.
await esbuild.build({ ...common, entryPoints: [join(root, 'lib/sandbox/ssh-proxy-main.ts')], outfile: join(root, 'dist/ssh-proxy.cjs') });
