// Built-in rules for JavaScript/TypeScript tools, run directly, through node_modules/.bin or a launcher.
import { heavy, light, local, NONE, positional, printsOnly, type Verdict, watching } from './kinds.js';
import { script } from './rules-scripts.js';

const unversioned = (name: string): string => {
  const at = name.indexOf('@', 1);
  return at > 0 ? name.slice(0, at) : name;
};
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|vue|svelte|astro|json|md|css|scss|sass|less)$/;

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
      if (args.some((a) => a === '--init' || a === '-v' || a === '-h')) return light(name, 'help');
      return args.includes('-b') || args.includes('--build') ? heavy(`${name} -b`, 'build') : heavy(name, 'types');
    }
    case 'eslint':
    case 'stylelint': {
      if (args.some((a) => a === '--print-config' || a === '--init' || a === '--inspect-config')) return light(name);
      const files = args.filter((a) => !a.startsWith('-'));
      return files.length > 0 && files.every((f) => SOURCE_FILE.test(f) && !f.includes('*')) ? light(`${name} (single files)`) : heavy(name, 'lint');
    }
    case 'wdio': {
      if (sub === 'config' || sub === 'repl') return local(`wdio ${sub}`, 'interactive');
      if (sub === 'install') return local('wdio install', 'install');
      const w = watching(args);
      return w ? local(`wdio ${w}`, 'watch') : heavy(sub === 'run' ? 'wdio run' : 'wdio', 'tests');
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
    case 'moon':
    case 'rush':
      return monorepo(name, args);
    case 'rushx':
      return sub ? script(`rushx ${sub}`, sub, args.slice(i + 1)) : light('rushx', 'help');
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
    else if (!a.startsWith('-') && a !== 'run' && a !== 'run-many' && a !== 'affected' && a !== 'exec')
      tasks.push(a.includes(':') ? a.slice(a.lastIndexOf(':') + 1) : a);
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
