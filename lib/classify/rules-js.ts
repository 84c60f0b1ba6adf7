// Built-in rules for JavaScript/TypeScript package managers: npm, pnpm, yarn, bun and the launchers.
import { heavy, light, local, positional, type Verdict } from './kinds.js';
import { tool } from './rules-js-tools.js';
import { afterDashDash, script } from './rules-scripts.js';

const JS_FILE = /\.[cm]?[jt]sx?$/;

const NPM_VALUE = new Set(['--prefix', '-w', '--workspace', '--loglevel', '-C', '--cache', '--userconfig']);
const NPM_INSTALL = new Set([
  'install',
  'i',
  'in',
  'ins',
  'inst',
  'insta',
  'instal',
  'isnt',
  'isnta',
  'isntal',
  'isntall',
  'add',
  'ci',
  'clean-install',
  'ic',
  'install-clean',
  'isntall-clean',
  'install-test',
  'it',
  'update',
  'up',
  'upgrade',
  'udpate',
  'uninstall',
  'un',
  'unlink',
  'remove',
  'rm',
  'r',
  'link',
  'ln',
  'dedupe',
  'ddp',
  'prune',
  'rebuild',
  'rb',
  'audit',
  'pkg',
  'shrinkwrap',
  'init',
  'create',
  'innit',
]);
const NPM_WORLD = new Set([
  'publish',
  'unpublish',
  'deprecate',
  'dist-tag',
  'version',
  'login',
  'logout',
  'adduser',
  'owner',
  'team',
  'token',
  'access',
  'org',
  'star',
  'unstar',
  'cache',
  'config',
  'set',
  'pack',
  'stop',
  'restart',
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
  'install',
  'i',
  'add',
  'update',
  'up',
  'upgrade',
  'remove',
  'rm',
  'uninstall',
  'un',
  'link',
  'ln',
  'unlink',
  'import',
  'rebuild',
  'rb',
  'prune',
  'patch',
  'patch-commit',
  'patch-remove',
  'fetch',
  'dedupe',
  'install-test',
  'it',
  'approve-builds',
  'init',
  'create',
  'setup',
  'env',
  'store',
  'audit',
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
  'install',
  'add',
  'remove',
  'up',
  'upgrade',
  'upgrade-interactive',
  'link',
  'unlink',
  'import',
  'dedupe',
  'rebuild',
  'patch',
  'patch-commit',
  'init',
  'create',
  'global',
  'set',
  'plugin',
  'unplug',
  'cache',
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

// `pnpm vitest watch`: a tool's own rules know its subcommands; a script name (`pnpm build`) is judged by name.
function scriptOrTool(label: string, argv: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  return tool(argv, classifyArgv) ?? script(label, argv[0] as string, argv.slice(1));
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
