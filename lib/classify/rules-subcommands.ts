// Tools whose first word after the name says what they do (`cargo test`, `go run`): a table per tool.
import { type Category, heavy, light, local, NONE, positional, table, type Verdict, watching } from './kinds.js';
import { script } from './rules-scripts.js';

/** One tool's subcommands: each heavy or local one with what it does, the light ones by name. */
interface Subcommands {
  heavy: Readonly<Record<string, Category>>;
  local?: Readonly<Record<string, Category>>;
  light?: readonly string[];
  /** Options that keep a heavy subcommand here: `go test -exec sudo` (the wrapper it names needs this machine). */
  localOptions?: Readonly<Record<string, Category>>;
  /** A subcommand not listed is light (cargo's and go's others are quick: `cargo tree`, `go env`); else unknown. */
  othersLight?: true;
  /** Subcommands with subcommands of their own: `cargo insta test`, `nix flake check`. */
  nested?: Readonly<Record<string, Subcommands>>;
  /** The subcommand that runs one of the project's scripts by name: `deno task test`. */
  scriptVerb?: string;
  /** Every word that names a subcommand counts, not only the first: `pants fmt lint test ::`. */
  goals?: true;
}

const SUBCOMMANDS: Readonly<Record<string, Subcommands>> = {
  cargo: {
    heavy: {
      build: 'build',
      b: 'build',
      test: 'tests',
      t: 'tests',
      check: 'types',
      c: 'types',
      clippy: 'lint',
      bench: 'bench',
      nextest: 'tests',
      doc: 'build',
      miri: 'tests',
      'llvm-cov': 'tests',
      tarpaulin: 'tests',
      mutants: 'tests',
    },
    local: {
      run: 'run',
      r: 'run',
      install: 'install',
      uninstall: 'install',
      add: 'install',
      remove: 'install',
      rm: 'install',
      update: 'install',
      fetch: 'install',
      publish: 'world',
      login: 'world',
      yank: 'world',
      new: 'world',
      init: 'world',
      watch: 'watch',
      clean: 'clean',
    },
    light: ['fmt', 'tree', 'metadata'],
    othersLight: true,
    nested: {
      // `cargo hack check --feature-powerset`, `cargo insta test --review` (its `review` is interactive)
      hack: { heavy: { check: 'types', test: 'tests', build: 'build', clippy: 'lint', bench: 'bench', doc: 'build' }, local: { run: 'run' } },
      insta: { heavy: { test: 'tests' }, local: { review: 'interactive' }, othersLight: true },
    },
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
      run: 'run',
      watch: 'watch',
      restore: 'install',
      add: 'install',
      remove: 'install',
      new: 'world',
      tool: 'install',
      nuget: 'world',
      publish: 'world',
      clean: 'clean',
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
    scriptVerb: 'task',
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
      sync: 'install',
      add: 'install',
      remove: 'install',
      lock: 'install',
      pip: 'install',
      venv: 'install',
      tool: 'install',
      python: 'install',
      publish: 'world',
    },
  },
  poetry: {
    heavy: { build: 'build' },
    local: { install: 'install', add: 'install', remove: 'install', lock: 'install', update: 'install', publish: 'world', shell: 'interactive' },
  },
  flutter: {
    heavy: { test: 'tests', analyze: 'lint', build: 'build' },
    local: {
      run: 'run',
      pub: 'install',
      clean: 'clean',
      create: 'world',
      upgrade: 'install',
      attach: 'interactive',
      drive: 'machine',
      install: 'machine',
      emulators: 'machine',
      logs: 'interactive',
      screenshot: 'machine',
    },
    light: ['format', 'doctor', 'devices', 'config', 'gen-l10n'],
  },
  dart: {
    heavy: { test: 'tests', analyze: 'lint', compile: 'build' },
    local: { run: 'run', pub: 'install', create: 'world', devtools: 'interactive' },
    light: ['format', 'fix', 'info'],
  },
  maturin: {
    heavy: { build: 'build' },
    local: { develop: 'install', publish: 'world', upload: 'world', new: 'world', init: 'world' },
    light: ['list-python', 'sdist'],
  },
  storybook: { heavy: { build: 'build' }, local: { dev: 'server', init: 'world', upgrade: 'install', add: 'install' } },
  // `nix develop -c …` and `nix shell … -c …` are wrappers (wrappers.ts); without -c they open a shell.
  nix: {
    heavy: {},
    local: { run: 'run', develop: 'interactive', shell: 'interactive', repl: 'interactive', profile: 'install', copy: 'world' },
    nested: {
      flake: { heavy: { check: 'check' }, local: { update: 'install', lock: 'install', init: 'world', new: 'world' }, light: ['show', 'metadata', 'info'] },
    },
  },
  pants: {
    heavy: { test: 'tests', check: 'types', lint: 'lint', package: 'build' },
    local: { run: 'run', repl: 'interactive', publish: 'world', 'generate-lockfiles': 'install', export: 'install' },
    light: ['fmt', 'fix', 'tailor', 'list', 'peek', 'roots', 'help'],
    goals: true,
  },
  // Laravel's `php artisan …` (or `./artisan …`).
  artisan: {
    heavy: { test: 'tests', dusk: 'tests' },
    local: {
      serve: 'server',
      tinker: 'interactive',
      migrate: 'world',
      'migrate:fresh': 'world',
      'migrate:refresh': 'world',
      'migrate:rollback': 'world',
      'db:seed': 'world',
      'db:wipe': 'world',
      'queue:work': 'server',
      'schedule:work': 'server',
    },
  },
  composer: { heavy: { test: 'tests' }, local: { install: 'install', require: 'install', update: 'install', remove: 'install' } },
};

/** A tool's table as it is read: Maps and Sets (fast, and no `constructor` key). */
export interface SubcommandTable {
  heavy: ReadonlyMap<string, Category>;
  local: ReadonlyMap<string, Category>;
  light: ReadonlySet<string>;
  localOptions: ReadonlyMap<string, Category>;
  othersLight: boolean;
  nested: ReadonlyMap<string, SubcommandTable>;
  scriptVerb: string | undefined;
  goals: boolean;
}

const compile = (t: Subcommands): SubcommandTable => ({
  heavy: table(t.heavy),
  local: table(t.local ?? {}),
  light: new Set(t.light),
  localOptions: table(t.localOptions ?? {}),
  othersLight: t.othersLight === true,
  nested: new Map(Object.entries(t.nested ?? {}).map(([k, v]) => [k, compile(v)])),
  scriptVerb: t.scriptVerb,
  goals: t.goals === true,
});
// Each tool's table is made when a command first names it: making them all cost every hook process that classifies
// (docs/performance.md), and a command names one or two.
const TABLES = new Map<string, SubcommandTable>();

/** The subcommand table of the tool `name`, if it has one. */
export function subcommandsOf(name: string): SubcommandTable | undefined {
  if (!Object.hasOwn(SUBCOMMANDS, name)) return undefined;
  let made = TABLES.get(name);
  if (made === undefined) TABLES.set(name, (made = compile(SUBCOMMANDS[name]!)));
  return made;
}

const SUB_VALUE = new Set(['-C', '--config', '-Z', '--color', '--manifest-path', '--output_base', '--bazelrc']);

/** The verdict for `name args…` by the tool's table. */
export function subcommand(name: string, args: readonly string[], tool: SubcommandTable): Verdict {
  const i = positional(args, SUB_VALUE);
  if (i < 0) return light(name, 'help');
  if (!tool.goals) return oneSubcommand(name, args, i, tool);
  // Goals: the first that must stay here decides, else the first heavy one, else the first.
  let found: Verdict | undefined;
  for (let j = i; j >= 0; j = positional(args, SUB_VALUE, j + 1)) {
    const v = oneSubcommand(name, args, j, tool);
    if (v.kind === 'local') return v;
    if (found === undefined || (v.kind === 'heavy' && found.kind !== 'heavy')) found = v;
  }
  return found ?? NONE;
}

// The subcommand at `args[i]`: nested, a script by name, local, heavy (unless watching, or an option keeps it here), light.
function oneSubcommand(name: string, args: readonly string[], i: number, tool: SubcommandTable): Verdict {
  const sub = args[i] as string;
  const label = `${name} ${sub}`;
  const nested = tool.nested.get(sub);
  if (nested) return subcommand(label, args.slice(i + 1), nested);
  if (sub === tool.scriptVerb) {
    const j = positional(args, SUB_VALUE, i + 1);
    return j < 0 ? light(label, 'help') : script(`${label} ${args[j]}`, args[j] as string, args.slice(j + 1));
  }
  const stays = tool.local.get(sub);
  if (stays) return local(label, stays);
  const does = tool.heavy.get(sub);
  if (does) {
    const w = watching(args);
    if (w) return local(`${label} ${w}`, 'watch');
    if (tool.localOptions.size > 0) {
      for (const a of args) {
        const eq = a.indexOf('=');
        const option = eq < 0 ? a : a.slice(0, eq);
        const category = tool.localOptions.get(option);
        if (category) return local(`${label} ${option}`, category);
      }
    }
    return heavy(label, does);
  }
  return tool.othersLight || tool.light.has(sub) ? light(label) : NONE;
}
