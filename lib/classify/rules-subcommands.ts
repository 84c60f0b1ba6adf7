// Tools whose first word after the name says what they do (`cargo test`, `go run`): a table per tool.
import type { Category } from './kinds.js';

/** One tool's subcommands: each heavy or local one with what it does, the light ones by name. */
export interface Subcommands {
  heavy: Readonly<Record<string, Category>>;
  local?: Readonly<Record<string, Category>>;
  light?: readonly string[];
  /** Options that keep a heavy subcommand here: `go test -exec sudo` (the wrapper it names needs this machine). */
  localOptions?: Readonly<Record<string, Category>>;
  /** A subcommand not listed is light (cargo's and go's others are quick: `cargo tree`, `go env`); else unknown. */
  othersLight?: true;
}

export const SUBCOMMANDS: Readonly<Record<string, Subcommands>> = {
  cargo: {
    heavy: {
      build: 'build', b: 'build', test: 'tests', t: 'tests', check: 'types', c: 'types', clippy: 'lint', bench: 'bench',
      nextest: 'tests', doc: 'build', miri: 'tests', 'llvm-cov': 'tests', tarpaulin: 'tests',
    },
    local: {
      run: 'run', r: 'run', install: 'install', uninstall: 'install', add: 'install', remove: 'install', rm: 'install',
      update: 'install', fetch: 'install', publish: 'world', login: 'world', yank: 'world', new: 'world', init: 'world',
      watch: 'watch', clean: 'clean',
    },
    light: ['fmt', 'tree', 'metadata'],
    othersLight: true,
  },
  go: {
    heavy: { test: 'tests', build: 'build', vet: 'lint' },
    local: { run: 'run', install: 'install', get: 'install', mod: 'install', work: 'install', generate: 'run', clean: 'clean' },
    light: ['fmt', 'env', 'version', 'list', 'doc'],
    localOptions: { '-exec': 'machine', '--exec': 'machine' },
    othersLight: true,
  },
  'golangci-lint': { heavy: { run: 'lint' } },
  dotnet: {
    heavy: { build: 'build', test: 'tests', msbuild: 'build', pack: 'build' },
    local: {
      run: 'run', watch: 'watch', restore: 'install', add: 'install', remove: 'install', new: 'world', tool: 'install',
      nuget: 'world', publish: 'world', clean: 'clean',
    },
    light: ['format'],
  },
  swift: { heavy: { build: 'build', test: 'tests' }, local: { run: 'run', package: 'install' } },
  bazel: {
    heavy: { build: 'build', test: 'tests', coverage: 'tests' },
    local: { run: 'run', clean: 'clean' },
    light: ['query', 'info', 'cquery'],
  },
  bazelisk: { heavy: { build: 'build', test: 'tests', coverage: 'tests' }, local: { run: 'run', clean: 'clean' }, light: ['query', 'info'] },
  buck2: { heavy: { build: 'build', test: 'tests' }, local: { run: 'run', clean: 'clean' } },
  // Like CMake's, meson's build folder is configured here with this machine's paths (see rules-build.ts).
  meson: { heavy: {}, local: { compile: 'buildTree', test: 'buildTree', setup: 'configure', configure: 'configure', install: 'install' } },
  deno: {
    heavy: { test: 'tests', check: 'types', bench: 'bench', compile: 'build', lint: 'lint' },
    local: { run: 'run', serve: 'server', repl: 'interactive', install: 'install', add: 'install', upgrade: 'install' },
    light: ['fmt'],
  },
  mix: {
    heavy: { test: 'tests', compile: 'build', credo: 'lint', dialyzer: 'types' },
    local: { 'deps.get': 'install', 'phx.server': 'server' },
    light: ['format'],
  },
  zig: { heavy: { build: 'build', test: 'tests' }, local: { run: 'run' } },
  dune: { heavy: { build: 'build', test: 'tests', runtest: 'tests' }, local: { exec: 'run' } },
  cabal: { heavy: { build: 'build', test: 'tests', bench: 'bench' }, local: { run: 'run', install: 'install', update: 'install' } },
  stack: { heavy: { build: 'build', test: 'tests', bench: 'bench' }, local: { run: 'run', install: 'install', exec: 'run' } },
  sbt: { heavy: { test: 'tests', compile: 'build', package: 'build' }, local: { run: 'run', publish: 'world', console: 'interactive' } },
  rake: { heavy: { test: 'tests', spec: 'tests', build: 'build' }, local: { release: 'world', install: 'install' } },
  rails: { heavy: { test: 'tests' }, local: { server: 'server', s: 'server', console: 'interactive', c: 'interactive' } },
  hatch: { heavy: { test: 'tests', build: 'build' }, local: { shell: 'interactive', publish: 'world' } },
  uv: {
    heavy: { build: 'build' },
    local: {
      sync: 'install', add: 'install', remove: 'install', lock: 'install', pip: 'install', venv: 'install', tool: 'install',
      python: 'install', publish: 'world',
    },
  },
  poetry: {
    heavy: { build: 'build' },
    local: { install: 'install', add: 'install', remove: 'install', lock: 'install', update: 'install', publish: 'world', shell: 'interactive' },
  },
  composer: { heavy: { test: 'tests' }, local: { install: 'install', require: 'install', update: 'install', remove: 'install' } },
};
