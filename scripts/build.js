#!/usr/bin/env node
// Builds dist/: tsc (types and the modules tests import), plus bundled, minified CommonJS files that bin/
// loads: the hook's hot path (no classifier), its full path (registry, classifier; zod only to check a changed
// config), and the CLI with its loader.
//
// Into a fresh folder beside dist/, which then takes dist/'s place: the hooks and a linked `sparehand` keep loading
// the last good build while this one runs (`npm test`, `npm pack`), and a failed build leaves it as it was.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = join(root, 'dist');
// What a killed build left (its pid gone) goes first: bin/ waits for a missing file only while a build runs.
for (const f of readdirSync(root)) {
  const m = /^\.dist-(?:build|old)-(\d+)$/.exec(f);
  if (m && !alive(Number(m[1]))) rmSync(join(root, f), { recursive: true, force: true });
}
// From scratch: a file left by an older build (a bundle since renamed) must not be shipped or loaded.
const out = join(root, `.dist-build-${process.pid}`);
rmSync(out, { recursive: true, force: true });
try {
  await build(out);
} catch (e) {
  rmSync(out, { recursive: true, force: true });
  throw e;
}
// The swap: two renames, a few microseconds without dist/ (bin/sparehand.js waits that out).
const old = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(out, dist);
rmSync(old, { recursive: true, force: true });

/** Whether a process with this pid runs here. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** In the answer bundle, lib/config-checked.ts's `import('./config.js')` requires dist/config-check.bundle.cjs instead. */
function configApart() {
  return {
    name: 'config-apart',
    setup(build) {
      build.onResolve({ filter: /^\.\/config\.js$/ }, (args) =>
        args.kind === 'dynamic-import' && args.importer.endsWith(join('lib', 'config-checked.ts'))
          ? { path: 'config-check', namespace: 'config-apart' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'config-apart' }, () => ({ contents: "module.exports = require('./config-check.bundle.cjs');", loader: 'js' }));
      build.onResolve({ filter: /^\.\/config-check\.bundle\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * In the answer bundle, each tool's spec without what only the CLI reads (install targets, facts for the docs, the
 * program's files, sample payloads): the hook's full path would otherwise build all twenty tools' install and docs
 * facts on every heavy call. lib/hook/ reads specs as `HookSpec` (lib/agents/types.ts: CLI_ONLY_FIELDS), which
 * leaves these out, so the type check holds the hook to not reading them; test/hook/answer-bundle.test.ts holds the
 * bundle to answering as the source does.
 */
function hookSlice(unread) {
  const ts = require('typescript');
  const strip = (context) => (file) => {
    const visit = (node) => {
      if (
        ts.isVariableDeclaration(node) &&
        node.type &&
        /\bAgentSpec\b/.test(node.type.getText(file)) &&
        node.initializer &&
        ts.isObjectLiteralExpression(node.initializer)
      ) {
        const kept = node.initializer.properties.filter((p) => !(p.name && ts.isIdentifier(p.name) && unread.has(p.name.text)));
        return ts.factory.updateVariableDeclaration(
          node,
          node.name,
          node.exclamationToken,
          node.type,
          ts.factory.updateObjectLiteralExpression(node.initializer, kept),
        );
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitNode(file, visit);
  };
  // An import only those fields used goes too (a module only the CLI needs, and what it loads).
  const withoutUnused = (js) => {
    const lines = js.split('\n');
    return lines
      .filter((line, i) => {
        const m = /^import \{([^}]*)\} from ['"][^'"]+['"];$/.exec(line);
        if (!m) return true;
        const rest = [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n');
        const names = m[1]
          .split(',')
          .map((n) =>
            n
              .trim()
              .split(/\s+as\s+/)
              .at(-1),
          )
          .filter(Boolean);
        // A use: the name, not as a property (`a.name`; a spread `...name` is a use).
        return names.some((n) => new RegExp(`(?<![\\w$])(?<!(?<!\\.\\.)\\.)${n.replace(/\$/g, '\\$')}(?![\\w$])`).test(rest));
      })
      .join('\n');
  };
  return {
    name: 'hook-slice',
    setup(build) {
      build.onLoad({ filter: /[\\/]lib[\\/]agents[\\/][^\\/]+\.ts$/ }, (args) => {
        const { outputText } = ts.transpileModule(readFileSync(args.path, 'utf8'), {
          fileName: args.path,
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          transformers: { before: [strip] },
        });
        return { contents: withoutUnused(outputText), loader: 'js' };
      });
    },
  };
}

/** Every `.pl` file under lib/, as paths relative to it. */
function perlFiles(dir = join(root, 'lib'), rel = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? perlFiles(join(dir, e.name), join(rel, e.name)) : e.name.endsWith('.pl') ? [join(rel, e.name)] : [],
  );
}

/**
 * In the bundles, each `perlFile(new URL('./x.pl', import.meta.url))` (lib/perl-file.ts) is the text it reads, as
 * perlSource makes it: a bundle is one file, with no .pl beside it. A call in another form fails the build.
 */
function perlInline(perlSource, perlName) {
  const call = /perlFile\(new URL\('(\.\/[^']+\.pl)', import\.meta\.url\)\)/g;
  return {
    name: 'perl-inline',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('perlFile(') || args.path.endsWith(join('lib', 'perl-file.ts'))) return undefined;
        const contents = source.replace(call, (_, rel) => {
          const file = join(dirname(args.path), rel);
          return JSON.stringify(perlSource(perlName(file), readFileSync(file, 'utf8')));
        });
        if (/perlFile\((?!new URL)/.test(contents.replace(/import \{[^}]*\} from '[^']*perl-file\.js';/, ''))) {
          throw new Error(`${args.path}: perlFile( must be given new URL('./x.pl', import.meta.url), which the build inlines`);
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** The whole build into `out`. */
async function build(out) {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--outDir', out], {
    stdio: 'inherit',
  });
  // The Perl beside the modules tsc built, which read it from there (lib/perl-file.ts).
  for (const rel of perlFiles()) {
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    copyFileSync(join(root, 'lib', rel), join(out, rel));
  }
  const esbuild = await import('esbuild');
  const { perlSource, perlName } = await import(pathToFileURL(join(out, 'perl-file.js')).href);
  const perl = perlInline(perlSource, perlName);
  // What "leave alone" prints per tool, from the registry just compiled: the hot path needs it without
  // loading the registry (and zod).
  const { allAgents } = await import(pathToFileURL(join(out, 'agents/index.js')).href);
  const { CLI_ONLY_FIELDS } = await import(pathToFileURL(join(out, 'agents/types.js')).href);
  const leave = Object.fromEntries(allAgents().map((a) => [a.id, a.leaveStdout ?? '']));
  // Which config schema this build checks with (lib/config-schema-id.ts): a check kept by another is not taken.
  const configSchema = createHash('sha256')
    .update(readFileSync(join(root, 'lib/config.ts')))
    .update(JSON.parse(readFileSync(require.resolve('zod/package.json'), 'utf8')).version)
    .digest('hex')
    .slice(0, 16);
  const common = {
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    // The shared modules find their files relative to import.meta.url; in a CommonJS bundle that is the bundle. Made
    // when first asked for: the hook's light path never asks.
    define: {
      'import.meta.url': '__sparehand.url',
      __SPAREHAND_LEAVE__: JSON.stringify(leave),
      __SPAREHAND_CONFIG_SCHEMA__: JSON.stringify(configSchema),
    },
    banner: { js: 'var __sparehand = { get url() { return require("node:url").pathToFileURL(__filename).href; } };' },
    plugins: [perl],
  };
  // What runs inside a coding tool's own process: an ES module of its own, without what only the CLI reads of a spec.
  const inProcess = {
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    define: { __SPAREHAND_CONFIG_SCHEMA__: JSON.stringify(configSchema) },
    plugins: [perl, hookSlice(new Set(CLI_ONLY_FIELDS))],
  };
  // Hot path: everything up to "is anything in this payload heavy?". The full path is a second bundle, beside it,
  // which lib/hook/entry.ts loads only when it is needed.
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'lib/hook/entry.ts')],
    outfile: join(out, 'hook.bundle.cjs'),
  });
  // Without what only the CLI reads of each tool (hookSlice), and with zod and the config schema in a bundle of their
  // own, beside it: the full path needs them only to check a config not checked before (lib/config-checked.ts), and
  // otherwise they cost every heavy call their load.
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'lib/hook/answer.ts')],
    outfile: join(out, 'hook-answer.bundle.cjs'),
    plugins: [perl, configApart(), hookSlice(new Set(CLI_ONLY_FIELDS))],
  });
  await esbuild.build({ ...common, entryPoints: [join(root, 'lib/config.ts')], outfile: join(out, 'config-check.bundle.cjs') });
  // The CLI: one bundle (ES module packages prefer their "module" build: jsonc-parser's UMD one requires files
  // at run time), loaded through a small loader that keeps V8's code cache.
  await esbuild.build({ ...common, entryPoints: [join(root, 'lib/cli.ts')], outfile: join(out, 'cli.bundle.cjs'), mainFields: ['module', 'main'] });
  await esbuild.build({ ...common, entryPoints: [join(root, 'lib/cli-loader.ts')], outfile: join(out, 'cli-loader.cjs') });
  // The body of the plugin that tools loading OpenCode's plugin API run inside their own process (an ES module, as they
  // load it): the hook's steps with what they need of the config (zod too, to check a config not checked before), all
  // in the one file that install writes after the plugin's first lines. No code cache, no other file: nothing of
  // sparehand's is loaded at a call.
  await esbuild.build({
    ...inProcess,
    entryPoints: [join(root, 'lib/in-process/opencode-plugin.ts')],
    outfile: join(out, 'opencode-plugin.mjs'),
  });
  // What Claude Code's mod runs for each Bash call (lib/in-process/claude-mod.ts): a module with no node in reach, so
  // node:fs, node:path, node:url, `process` and `Buffer` are the stand-ins lib/hook/read-ahead.ts serves from what
  // Claude Code lends. Install writes it beside the mod's own module, which imports it.
  const standIn = (name) => join(root, 'lib/hook/read-ahead', `${name}.ts`);
  await esbuild.build({
    ...inProcess,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    alias: Object.fromEntries(
      ['fs', 'path', 'url'].flatMap((m) => [
        [m, standIn(`node-${m}`)],
        [`node:${m}`, standIn(`node-${m}`)],
      ]),
    ),
    inject: [standIn('globals')],
    entryPoints: [join(root, 'lib/in-process/claude-mod.ts')],
    outfile: join(out, 'claude-mod-core.mjs'),
  });
  // What `agent test` runs the installed mod with: a stand-in of Claude Code, in a node of its own.
  await esbuild.build({ ...inProcess, entryPoints: [join(root, 'lib/agents/claude-mod-stand-in.ts')], outfile: join(out, 'claude-mod-stand-in.mjs') });
  // The watcher of a project on a Mac (lib/watch/fsevents-watcher.ts), started detached by a run: `fsevents` (an optional,
  // native dependency, darwin only) is loaded at run time from sparehand's own node_modules, never bundled.
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'lib/watch/fsevents-watcher.ts')],
    outfile: join(out, 'fsevents-watcher.cjs'),
    external: ['fsevents'],
  });
  // ssh's ProxyCommand inside a sandbox whose only way out is a proxy: started once per connection, so on its own.
  await esbuild.build({ ...common, entryPoints: [join(root, 'lib/sandbox/ssh-proxy-main.ts')], outfile: join(out, 'ssh-proxy.cjs') });
}
