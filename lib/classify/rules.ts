// Built-in rules for one command's argv (after env prefixes and wrappers): heavy, light, local or unknown.
import { basename, type Category, heavy, light, local, lookup, NONE, positional, printsOnly, type Verdict, watching } from './kinds.js';
import { buildSystem } from './rules-build.js';
import { bun, launch, npm, pnpm, tool, yarn } from './rules-js.js';
import { SUBCOMMANDS, type Subcommands } from './rules-subcommands.js';

const SUB_VALUE = new Set(['-C', '--config', '-Z', '--color', '--manifest-path', '--output_base', '--bazelrc']);

// Tools that are heavy whatever their arguments (unless watching or asking for help).
const PLAIN: Readonly<Record<string, Category>> = {
  pytest: 'tests', 'py.test': 'tests', tox: 'tests', nox: 'tests', mypy: 'types', dmypy: 'types', pyright: 'types',
  basedpyright: 'types', pylint: 'lint', flake8: 'lint', rspec: 'tests',
  phpunit: 'tests', pest: 'tests', phpstan: 'types', psalm: 'types', staticcheck: 'lint', gotestsum: 'tests',
  'cargo-nextest': 'tests', xcodebuild: 'build', scons: 'build',
};
// Quick and only reading the tree or printing: safe inside a chain sent to a worker.
const LIGHT = new Set([
  'cd', 'echo', 'printf', 'true', 'false', ':', 'set', 'shopt', 'export', 'unset', 'exit', 'sleep', 'test', '[',
  'wait', 'cat', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'rg', 'wc', 'sort', 'uniq', 'cut', 'tr', 'mkdir', 'touch',
  'ruff', 'black', 'isort', 'gofmt', 'rustfmt', 'clang-format', 'shellcheck',
]);
// Must run here: they change this machine or the world, are interactive, or read state that stays here.
const LOCAL: Readonly<Record<string, Category>> = {
  git: 'vcs', gh: 'world', hg: 'vcs', svn: 'vcs', docker: 'world', 'docker-compose': 'world', podman: 'world',
  kubectl: 'world', helm: 'world', terraform: 'world', tofu: 'world', pulumi: 'world', ansible: 'world',
  'ansible-playbook': 'world', ssh: 'world', scp: 'world', rsync: 'world', sftp: 'world', curl: 'world', wget: 'world',
  sudo: 'world', su: 'world', doas: 'world', apt: 'install', 'apt-get': 'install', brew: 'install', dnf: 'install',
  yum: 'install', pacman: 'install', apk: 'install', snap: 'install', pip: 'install', pip3: 'install', pipx: 'install',
  gem: 'install', bundle: 'install', conda: 'install', mamba: 'install', nvm: 'install', rustup: 'install',
  corepack: 'install', vercel: 'world', netlify: 'world', fly: 'world', flyctl: 'world', heroku: 'world',
  firebase: 'world', wrangler: 'world', aws: 'world', gcloud: 'world', az: 'world', sam: 'world', serverless: 'world',
  sls: 'world', cdk: 'world', open: 'interactive', 'xdg-open': 'interactive', code: 'interactive', vim: 'interactive',
  vi: 'interactive', nvim: 'interactive', nano: 'interactive', emacs: 'interactive', less: 'interactive',
  more: 'interactive', man: 'interactive', top: 'interactive', htop: 'interactive', watch: 'watch', tmux: 'interactive',
  screen: 'interactive', nohup: 'run', kill: 'world', pkill: 'world', killall: 'world', systemctl: 'world',
  service: 'world', crontab: 'world', rm: 'clean', mv: 'world', chmod: 'world', chown: 'world', ln: 'world',
  nodemon: 'watch', 'ts-node-dev': 'watch', ptw: 'watch', 'pytest-watch': 'watch', entr: 'watch', watchexec: 'watch',
  configure: 'configure', ipython: 'interactive', irb: 'interactive',
  psql: 'interactive', mysql: 'interactive', sqlite3: 'interactive', redis: 'interactive',
};
const PYTHON = /^(?:python[0-9.]*|pypy[0-9.]*|py)$/;

/** The built-in verdict for one command line (its name first). `classifyArgv` classifies a nested argv. */
export function builtin(argv: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const raw = argv[0] as string;
  const name = basename(raw);
  const args = argv.slice(1);
  if (printsOnly(name, args)) return light(`${name} --help/--version`, 'help');
  if (LIGHT.has(name)) return light(name);
  switch (name) {
    case 'npm':
      return npm(args, classifyArgv);
    case 'pnpm':
      return pnpm(args, classifyArgv);
    case 'yarn':
      return yarn(args, classifyArgv);
    case 'bun':
      return bun(args, classifyArgv);
    case 'npx':
    case 'bunx':
    case 'pnpx':
      return launch(name, args, classifyArgv);
    case 'node':
      return node(args);
    default:
  }
  const build = buildSystem(name, args);
  if (build) return build;
  const table = lookup(SUBCOMMANDS, name);
  if (table) return subcommand(name, args, table);
  const plain = lookup(PLAIN, name);
  if (plain) {
    const w = watching(args);
    return w ? local(`${name} ${w}`, 'watch') : heavy(name, plain);
  }
  if (PYTHON.test(name)) return python(name, args, classifyArgv);
  const loc = lookup(LOCAL, name);
  if (loc) return local(name === 'git' && args[0] && !args[0].startsWith('-') ? `git ${args[0]}` : name, loc);
  return tool([name, ...args], classifyArgv) ?? NONE;
}

function subcommand(name: string, args: readonly string[], table: Subcommands): Verdict {
  const i = positional(args, SUB_VALUE);
  if (i < 0) return light(name, 'help');
  const sub = args[i] as string;
  const label = `${name} ${sub}`;
  const stays = table.local && lookup(table.local, sub);
  if (stays) return local(label, stays);
  const does = lookup(table.heavy, sub);
  if (does) {
    const w = watching(args);
    if (w) return local(`${label} ${w}`, 'watch');
    for (const a of table.localOptions ? args : []) {
      const option = a.split('=', 1)[0] as string;
      const category = lookup(table.localOptions ?? {}, option);
      if (category) return local(`${label} ${option}`, category);
    }
    return heavy(label, does);
  }
  return table.othersLight || table.light?.includes(sub) ? light(label) : NONE;
}

function node(args: readonly string[]): Verdict {
  if (args.some((a) => a === '--watch' || a.startsWith('--watch-path'))) return local('node --watch', 'watch');
  if (args.includes('--test')) return heavy('node --test', 'tests');
  const r = args.indexOf('--run');
  if (r >= 0 && args[r + 1]) {
    const name = args[r + 1] as string;
    return name === 'test' || name.startsWith('test') || name.startsWith('build') || name.startsWith('lint') || name.startsWith('typecheck')
      ? heavy(`node --run ${name}`, name.startsWith('build') ? 'build' : name.startsWith('lint') ? 'lint' : name.startsWith('type') ? 'types' : 'tests')
      : NONE;
  }
  return positional(args) < 0 ? local('node', 'interactive') : NONE;
}

const PY_MODULE: Readonly<Record<string, Category>> = {
  pytest: 'tests', unittest: 'tests', tox: 'tests', nox: 'tests', mypy: 'types', pyright: 'types', pylint: 'lint',
  flake8: 'lint', build: 'build', compileall: 'build',
};
const PY_LOCAL_MODULE: Readonly<Record<string, Category>> = { pip: 'install', venv: 'install', 'http.server': 'server', ensurepip: 'install', pdb: 'interactive' };

function python(name: string, args: readonly string[], classifyArgv: (argv: string[]) => Verdict): Verdict {
  const m = args.indexOf('-m');
  if (m >= 0 && args[m + 1]) {
    const mod = args[m + 1] as string;
    const cat = lookup(PY_MODULE, mod);
    if (cat) return heavy(`${name} -m ${mod}`, cat);
    const loc = lookup(PY_LOCAL_MODULE, mod);
    if (loc) return local(`${name} -m ${mod}`, loc);
    const v = classifyArgv([mod, ...args.slice(m + 2)]);
    return v.kind === 'heavy' ? v : NONE;
  }
  const i = positional(args);
  if (i < 0) return args.includes('-c') ? NONE : local(name, 'interactive');
  const script = basename(args[i] as string);
  const sub = args[i + 1];
  if (script === 'manage.py') return sub === 'test' ? heavy(`${name} manage.py test`, 'tests') : sub === 'runserver' ? local(`${name} manage.py runserver`, 'server') : NONE;
  if (script === 'setup.py') return sub === 'test' ? heavy(`${name} setup.py test`, 'tests') : sub === 'build' || sub === 'build_ext' ? heavy(`${name} setup.py ${sub}`, 'build') : sub === 'install' || sub === 'develop' ? local(`${name} setup.py ${sub}`, 'install') : NONE;
  return NONE;
}
