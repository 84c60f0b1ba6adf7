// Built-in rules for one command's argv (after env prefixes and wrappers): heavy, light, local or unknown.
import { basename, type Category, heavy, light, local, NONE, positional, printsOnly, table, type Verdict, watching } from './kinds.js';
import { buildSystem } from './rules-build.js';
import { bun, launch, npm, pnpm, yarn } from './rules-js.js';
import { tool } from './rules-js-tools.js';
import { isPython, php, python } from './rules-interpreters.js';
import { subcommand, subcommandsOf } from './rules-subcommands.js';

// Tools that are heavy whatever their arguments (unless watching or asking for help).
const PLAIN = table<Category>({
  pytest: 'tests',
  'py.test': 'tests',
  tox: 'tests',
  nox: 'tests',
  mypy: 'types',
  dmypy: 'types',
  pyright: 'types',
  basedpyright: 'types',
  pylint: 'lint',
  flake8: 'lint',
  rspec: 'tests',
  phpunit: 'tests',
  pest: 'tests',
  phpstan: 'types',
  psalm: 'types',
  staticcheck: 'lint',
  gotestsum: 'tests',
  'cargo-nextest': 'tests',
  xcodebuild: 'build',
  scons: 'build',
  'build-storybook': 'build',
});
// Quick and only reading the tree or printing: safe inside a chain sent to a worker.
const LIGHT = new Set([
  'cd',
  'echo',
  'printf',
  'true',
  'false',
  ':',
  'set',
  'shopt',
  'export',
  'unset',
  'exit',
  'sleep',
  'test',
  '[',
  'wait',
  'cat',
  'head',
  'tail',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'wc',
  'sort',
  'uniq',
  'cut',
  'tr',
  'mkdir',
  'touch',
  'ruff',
  'black',
  'isort',
  'gofmt',
  'rustfmt',
  'clang-format',
  'shellcheck',
]);
// Must run here: they change this machine or the world, are interactive, or read state that stays here.
const LOCAL = table<Category>({
  git: 'vcs',
  gh: 'world',
  hg: 'vcs',
  svn: 'vcs',
  docker: 'world',
  'docker-compose': 'world',
  podman: 'world',
  kubectl: 'world',
  helm: 'world',
  terraform: 'world',
  tofu: 'world',
  pulumi: 'world',
  ansible: 'world',
  'ansible-playbook': 'world',
  ssh: 'world',
  scp: 'world',
  rsync: 'world',
  sftp: 'world',
  curl: 'world',
  wget: 'world',
  sudo: 'world',
  su: 'world',
  doas: 'world',
  apt: 'install',
  'apt-get': 'install',
  brew: 'install',
  dnf: 'install',
  yum: 'install',
  pacman: 'install',
  apk: 'install',
  snap: 'install',
  pip: 'install',
  pip3: 'install',
  pipx: 'install',
  gem: 'install',
  bundle: 'install',
  conda: 'install',
  mamba: 'install',
  nvm: 'install',
  rustup: 'install',
  corepack: 'install',
  vercel: 'world',
  netlify: 'world',
  fly: 'world',
  flyctl: 'world',
  heroku: 'world',
  firebase: 'world',
  wrangler: 'world',
  aws: 'world',
  gcloud: 'world',
  az: 'world',
  sam: 'world',
  serverless: 'world',
  sls: 'world',
  cdk: 'world',
  open: 'interactive',
  'xdg-open': 'interactive',
  code: 'interactive',
  vim: 'interactive',
  vi: 'interactive',
  nvim: 'interactive',
  nano: 'interactive',
  emacs: 'interactive',
  less: 'interactive',
  more: 'interactive',
  man: 'interactive',
  top: 'interactive',
  htop: 'interactive',
  watch: 'watch',
  tmux: 'interactive',
  screen: 'interactive',
  nohup: 'run',
  kill: 'world',
  pkill: 'world',
  killall: 'world',
  systemctl: 'world',
  service: 'world',
  crontab: 'world',
  rm: 'clean',
  mv: 'world',
  chmod: 'world',
  chown: 'world',
  ln: 'world',
  nodemon: 'watch',
  'ts-node-dev': 'watch',
  ptw: 'watch',
  'pytest-watch': 'watch',
  entr: 'watch',
  watchexec: 'watch',
  configure: 'configure',
  ipython: 'interactive',
  irb: 'interactive',
  psql: 'interactive',
  mysql: 'interactive',
  sqlite3: 'interactive',
  redis: 'interactive',
});

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
  const table = subcommandsOf(name);
  if (table) return subcommand(name, args, table);
  const plain = PLAIN.get(name);
  if (plain) {
    const w = watching(args);
    return w ? local(`${name} ${w}`, 'watch') : heavy(name, plain);
  }
  if (isPython(name)) return python(name, args, classifyArgv);
  if (name === 'php') return php(args, classifyArgv);
  const loc = LOCAL.get(name);
  if (loc) return local(name === 'git' && args[0] && !args[0].startsWith('-') ? `git ${args[0]}` : name, loc);
  return tool([name, ...args], classifyArgv) ?? NONE;
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
