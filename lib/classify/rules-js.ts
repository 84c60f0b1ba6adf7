// Built-in rules for JavaScript/TypeScript: package managers, their scripts, and the usual tools.
import { type Category, heavy, light, local, lookup, NONE, positional, printsOnly, type Verdict, watching } from './kinds.js';

const HEAVY_SCRIPT: Readonly<Record<string, Category>> = {
  test: 'tests', tests: 'tests', spec: 'tests', specs: 'tests', unit: 'tests', integration: 'tests', e2e: 'tests',
  coverage: 'tests', cover: 'tests', ci: 'tests', build: 'build', compile: 'build', bundle: 'build', dist: 'build',
  lint: 'lint', typecheck: 'types', tsc: 'types', types: 'types', type: 'types', ts: 'types', check: 'check',
  verify: 'check', validate: 'check', bench: 'bench', benchmark: 'bench',
};
const LOCAL_SCRIPT: Readonly<Record<string, Category>> = {
  dev: 'server', develop: 'server', start: 'server', serve: 'server', server: 'server', preview: 'server',
  storybook: 'server', open: 'server', watch: 'watch', tdd: 'watch', deploy: 'world', release: 'world',
  publish: 'world', docker: 'world', install: 'install', setup: 'install', bootstrap: 'install', clean: 'clean',
};
const SCRIPT_SPLIT = /[:\-_./]/;
const PRE_POST = /^(pre|post)(?=.)/;
const JS_FILE = /\.[cm]?[jt]sx?$/;

/**
 * A package.json script by its name: `test:unit`, `build-prod` heavy; `dev`, `test:watch` local; others unknown.
 * `rest` are the words after the name; `passedOn` those the script receives (npm: after `--`), where a `-w`
 * is a watch flag too (unless a number follows: jest's `-w 4` is its worker count).
 */
export function script(label: string, name: string, rest: readonly string[], passedOn: readonly string[] = rest): Verdict {
  const segs = name.toLowerCase().split(SCRIPT_SPLIT);
  for (const s of segs) {
    const cat = lookup(LOCAL_SCRIPT, s);
    if (cat) return local(label, cat);
  }
  const first = (segs[0] ?? '').replace(PRE_POST, '');
  const cat = lookup(HEAVY_SCRIPT, first) ?? lookup(HEAVY_SCRIPT, segs[0] ?? '');
  if (!cat) return NONE;
  const w = watching(rest) ?? dashW(passedOn);
  return w ? local(`${label} ${w}`, 'watch') : heavy(label, cat);
}

const dashW = (args: readonly string[]): string | undefined => {
  const i = args.indexOf('-w');
  return i >= 0 && !/^[0-9]/.test(args[i + 1] ?? '') ? '-w' : undefined;
};
const afterDashDash = (args: readonly string[]): readonly string[] => {
  const i = args.indexOf('--');
  return i < 0 ? [] : args.slice(i + 1);
};

const NPM_VALUE = new Set(['--prefix', '-w', '--workspace', '--loglevel', '-C', '--cache', '--userconfig']);
const NPM_INSTALL = new Set([
  'install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add', 'ci',
  'clean-install', 'ic', 'install-clean', 'isntall-clean', 'install-test', 'it', 'update', 'up', 'upgrade', 'udpate',
  'uninstall', 'un', 'unlink', 'remove', 'rm', 'r', 'link', 'ln', 'dedupe', 'ddp', 'prune', 'rebuild', 'rb', 'audit',
  'pkg', 'shrinkwrap', 'init', 'create', 'innit',
]);
const NPM_WORLD = new Set([
  'publish', 'unpublish', 'deprecate', 'dist-tag', 'version', 'login', 'logout', 'adduser', 'owner', 'team', 'token',
  'access', 'org', 'star', 'unstar', 'cache', 'config', 'set', 'pack', 'stop', 'restart',
]);

/** npm (and `npm exec`/`npx` through `launch`). */
export function npm(args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const i = positional(args, NPM_VALUE);
  if (i < 0) return light('npm', 'help');
  const cmd = args[i] as string;
  const rest = args.slice(i + 1);
  if (cmd === 'test' || cmd === 't' || cmd === 'tst') return script(`npm ${cmd}`, 'test', rest, afterDashDash(rest));
  if (cmd === 'run' || cmd === 'run-script' || cmd === 'rum' || cmd === 'urn') {
    const j = positional(rest, NPM_VALUE);
    if (j < 0) return light('npm run', 'help');
    const after = rest.slice(j + 1);
    return script(`npm ${cmd} ${rest[j]}`, rest[j] as string, after, afterDashDash(after));
  }
  if (cmd === 'start') return local('npm start', 'server');
  if (cmd === 'exec' || cmd === 'x') return launch(`npm ${cmd}`, rest, classifyArgv);
  if (NPM_INSTALL.has(cmd)) return local(`npm ${cmd}`, 'install');
  if (NPM_WORLD.has(cmd)) return local(`npm ${cmd}`, 'world');
  return light(`npm ${cmd}`);
}

const PNPM_VALUE = new Set(['--filter', '-F', '-C', '--dir', '--reporter', '--workspace-concurrency', '--resume-from', '--filter-prod', '--loglevel']);
const PNPM_INSTALL = new Set([
  'install', 'i', 'add', 'update', 'up', 'upgrade', 'remove', 'rm', 'uninstall', 'un', 'link', 'ln', 'unlink',
  'import', 'rebuild', 'rb', 'prune', 'patch', 'patch-commit', 'patch-remove', 'fetch', 'dedupe', 'install-test', 'it',
  'approve-builds', 'init', 'create', 'setup', 'env', 'store', 'audit',
]);
const PNPM_WORLD = new Set(['publish', 'deploy', 'pack', 'login', 'logout', 'config', 'set', 'self-update', 'server']);

/** pnpm: `pnpm -r test`, `pnpm --filter x build`, `pnpm build` (a script), `pnpm vitest run` (a tool). */
export function pnpm(args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const i = positional(args, PNPM_VALUE);
  if (i < 0) return local('pnpm', 'install');
  const cmd = args[i] as string;
  const rest = args.slice(i + 1);
  if (cmd === 'test' || cmd === 't' || cmd === 'tst') return script(`pnpm ${cmd}`, 'test', rest);
  if (cmd === 'run' || cmd === 'run-script') {
    const j = positional(rest, PNPM_VALUE);
    return j < 0 ? light('pnpm run', 'help') : script(`pnpm run ${rest[j]}`, rest[j] as string, rest.slice(j + 1));
  }
  if (cmd === 'start') return local('pnpm start', 'server');
  if (cmd === 'exec' || cmd === 'dlx' || cmd === 'x') return launch(`pnpm ${cmd}`, rest, classifyArgv);
  if (PNPM_INSTALL.has(cmd)) return local(`pnpm ${cmd}`, 'install');
  if (PNPM_WORLD.has(cmd)) return local(`pnpm ${cmd}`, 'world');
  return scriptOrTool(`pnpm ${cmd}`, args.slice(i), classifyArgv);
}

const YARN_VALUE = new Set(['--cwd', '--include', '--exclude', '--from', '-j', '--jobs', '--since']);
const YARN_INSTALL = new Set([
  'install', 'add', 'remove', 'up', 'upgrade', 'upgrade-interactive', 'link', 'unlink', 'import', 'dedupe', 'rebuild',
  'patch', 'patch-commit', 'init', 'create', 'global', 'set', 'plugin', 'unplug', 'cache',
]);
const YARN_WORLD = new Set(['publish', 'npm', 'pack', 'login', 'logout', 'config', 'version', 'tag', 'owner', 'team']);

/** yarn (1 and berry): `yarn test`, `yarn build`, `yarn workspace w test`, `yarn workspaces foreach -A run test`. */
export function yarn(args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const i = positional(args, YARN_VALUE);
  if (i < 0) return local('yarn', 'install');
  const cmd = args[i] as string;
  const rest = args.slice(i + 1);
  if (cmd === 'test') return script('yarn test', 'test', rest);
  if (cmd === 'run') {
    const j = positional(rest, YARN_VALUE);
    return j < 0 ? light('yarn run', 'help') : script(`yarn run ${rest[j]}`, rest[j] as string, rest.slice(j + 1));
  }
  if (cmd === 'workspace') {
    const j = positional(rest, YARN_VALUE);
    return j < 0 ? light('yarn workspace', 'help') : yarn(rest.slice(j + 1), classifyArgv);
  }
  if (cmd === 'workspaces') {
    const j = positional(rest, YARN_VALUE, 0);
    const k = rest[j] === 'foreach' ? positional(rest, YARN_VALUE, j + 1) : j;
    return k < 0 ? light('yarn workspaces', 'help') : yarn(rest.slice(k), classifyArgv);
  }
  if (cmd === 'start') return local('yarn start', 'server');
  if (cmd === 'exec' || cmd === 'dlx') return launch(`yarn ${cmd}`, rest, classifyArgv);
  if (YARN_INSTALL.has(cmd)) return local(`yarn ${cmd}`, 'install');
  if (YARN_WORLD.has(cmd)) return local(`yarn ${cmd}`, 'world');
  return scriptOrTool(`yarn ${cmd}`, args.slice(i), classifyArgv);
}

const BUN_INSTALL = new Set(['install', 'i', 'add', 'a', 'remove', 'rm', 'update', 'link', 'unlink', 'pm', 'patch', 'create', 'init', 'upgrade', 'outdated']);

/** bun: `bun test`, `bun run build`, `bun build`, `bun x tool`. */
export function bun(args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const w = args.find((a) => a === '--watch' || a === '--hot');
  if (w) return local(`bun ${w}`, 'watch');
  const i = positional(args);
  if (i < 0) return light('bun', 'help');
  const cmd = args[i] as string;
  const rest = args.slice(i + 1);
  if (cmd === 'test') return heavy('bun test', 'tests');
  if (cmd === 'build') return heavy('bun build', 'build');
  if (cmd === 'run') {
    const j = positional(rest);
    if (j < 0) return light('bun run', 'help');
    return runnable(`bun run ${rest[j]}`, rest.slice(j), classifyArgv);
  }
  if (cmd === 'x') return launch('bun x', rest, classifyArgv);
  if (BUN_INSTALL.has(cmd)) return local(`bun ${cmd}`, 'install');
  if (cmd === 'publish') return local('bun publish', 'world');
  return runnable(`bun ${cmd}`, args.slice(i), classifyArgv);
}

// `bun run x` / `bun x`: a source file is a program (stays here); otherwise a script or a tool.
function runnable(label: string, argv: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const f = argv[0] as string;
  if (JS_FILE.test(f)) return local(label, 'run');
  return scriptOrTool(label, argv, classifyArgv);
}

function scriptOrTool(label: string, argv: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const v = script(label, argv[0] as string, argv.slice(1));
  if (v !== NONE) return v;
  return tool(argv, classifyArgv) ?? NONE;
}

const LAUNCH_VALUE = new Set(['-p', '--package', '-c', '--call', '--cache', '--prefix', '-w', '--workspace']);

/** npx / bunx / pnpm dlx / npm exec: the tool after the launcher's own options. */
export function launch(label: string, args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const i = positional(args, LAUNCH_VALUE);
  if (i < 0) return light(label, 'help');
  const v = tool(args.slice(i), classifyArgv);
  if (v) return { ...v, rule: v.rule.replace(/^(\w+): /, `$1: ${label} `) };
  return classifyArgv(args.slice(i));
}

const unversioned = (name: string): string => {
  const at = name.indexOf('@', 1);
  return at > 0 ? name.slice(0, at) : name;
};
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|vue|svelte|astro|json|md)$/;

/** JS tools run directly, through node_modules/.bin, or through a launcher; undefined when not one of them. */
export function tool(argv: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict | undefined {
  const v = toolRule(argv, classifyArgv);
  const name = unversioned(argv[0] as string);
  return v && printsOnly(name, argv.slice(1)) ? light(`${name} --help/--version`, 'help') : v;
}

function toolRule(argv: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict | undefined {
  const name = unversioned(argv[0] as string);
  const args = argv.slice(1);
  const i = positional(args);
  const sub = i < 0 ? '' : (args[i] as string);
  switch (name) {
    case 'vitest': {
      const w = watching(args, true) ?? (sub === 'watch' || sub === 'dev' ? sub : undefined);
      return w ? local(`vitest ${w}`, 'watch') : heavy(sub === 'run' || sub === 'bench' ? `vitest ${sub}` : 'vitest', 'tests');
    }
    case 'jest':
    case 'mocha':
    case 'ava':
    case 'tap':
    case 'jasmine':
    case 'karma': {
      const w = watching(args, name === 'mocha');
      if (w) return local(`${name} ${w}`, 'watch');
      return name === 'karma' && !args.includes('--single-run') ? local('karma', 'watch') : heavy(name, 'tests');
    }
    case 'playwright':
    case 'cypress':
      if (sub === 'test' || sub === 'run') {
        return args.includes('--ui') ? local(`${name} ${sub} --ui`, 'interactive') : heavy(`${name} ${sub}`, 'tests');
      }
      return sub === 'install' || sub === 'install-deps' ? local(`${name} ${sub}`, 'install') : local(`${name} ${sub}`.trim(), 'interactive');
    case 'tsc':
    case 'vue-tsc':
    case 'svelte-check':
    case 'tsgo': {
      const w = watching(args, true);
      if (w) return local(`${name} ${w}`, 'watch');
      if (args.some((a) => a === '--init' || a === '-v' || a === '--version' || a === '--help' || a === '-h')) return light(name, 'help');
      return args.includes('-b') || args.includes('--build') ? heavy(`${name} -b`, 'build') : heavy(name, 'types');
    }
    case 'eslint': {
      if (args.some((a) => a === '--print-config' || a === '--init' || a === '--inspect-config')) return light('eslint');
      const files = args.filter((a) => !a.startsWith('-'));
      return files.length > 0 && files.every((f) => SOURCE_FILE.test(f) && !f.includes('*')) ? light('eslint (single files)') : heavy('eslint', 'lint');
    }
    case 'next':
    case 'nuxt':
    case 'nuxi':
    case 'astro':
    case 'vite':
    case 'ng':
    case 'remix':
    case 'react-scripts':
    case 'parcel':
      return framework(name, sub);
    case 'webpack':
    case 'webpack-cli':
    case 'rollup':
    case 'tsup':
    case 'tsdown':
    case 'esbuild':
    case 'babel':
    case 'swc':
    case 'microbundle':
    case 'unbuild': {
      if (sub === 'serve' || args.includes('--serve') || args.some((a) => a.startsWith('--servedir'))) return local(`${name} serve`, 'server');
      const w = watching(args, true);
      return w ? local(`${name} ${w}`, 'watch') : heavy(name, 'build');
    }
    case 'turbo':
    case 'lerna':
    case 'nx':
      return monorepo(name, args);
    case 'prettier':
    case 'biome':
    case 'oxlint':
    case 'dprint':
      return light(name);
    case 'c8':
    case 'nyc': {
      const j = positional(args);
      return j < 0 ? light(name, 'help') : classifyArgv(args.slice(j));
    }
    default:
      return undefined;
  }
}

const FRAMEWORK_HEAVY = new Set(['build', 'generate', 'export', 'test', 'lint', 'check', 'e2e', 'typecheck']);
const FRAMEWORK_SERVER = new Set(['', 'dev', 'start', 'serve', 'preview', 'develop']);

function framework(name: string, sub: string): Verdict {
  if (name === 'parcel' && sub !== 'build') return local(`parcel ${sub}`.trim(), 'server');
  if (FRAMEWORK_HEAVY.has(sub)) return heavy(`${name} ${sub}`, sub === 'test' || sub === 'e2e' ? 'tests' : sub === 'lint' ? 'lint' : 'build');
  if (FRAMEWORK_SERVER.has(sub)) return local(`${name} ${sub}`.trim(), 'server');
  return NONE;
}

// turbo run build test / nx test app / nx run app:build / nx run-many -t test / lerna run test.
function monorepo(name: string, args: readonly string[]): Verdict {
  if (watching(args) || args[0] === 'watch') return local(`${name} watch`, 'watch');
  const tasks: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '-t' || a === '--target' || a === '--targets') tasks.push(...(args[++i] ?? '').split(','));
    else if (a.startsWith('--targets=') || a.startsWith('--target=')) tasks.push(...a.slice(a.indexOf('=') + 1).split(','));
    else if (!a.startsWith('-') && a !== 'run' && a !== 'run-many' && a !== 'affected' && a !== 'exec') tasks.push(a.includes(':') ? a.slice(a.lastIndexOf(':') + 1) : a);
    if (name === 'nx' && tasks.length > 0 && !a.startsWith('-')) break;
  }
  let found: Verdict = NONE;
  for (const t of tasks) {
    const v = script(`${name} ${t}`, t, []);
    if (v.kind === 'local') return v;
    if (v.kind === 'heavy' && found === NONE) found = v;
  }
  return found;
}
