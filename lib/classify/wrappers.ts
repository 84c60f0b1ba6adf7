// Programs that run another command (`timeout 600 npm test`, `env CI=1 jest`, `taskset -c 0-3 make`,
// `nix develop -c cargo test`, `uv run pytest`): where that command starts, so that it is what gets judged.
import { basename, positional, table } from './kinds.js';
import { type OptionSpec, skipOptions } from './options.js';

interface Wrapper extends OptionSpec {
  /** One word between the options and the command, of this shape: timeout's DURATION, chrt's priority, taskset's mask. */
  operand?: RegExp;
  /** `NAME=value` words may stand before the command (env, cross-env). */
  assignments?: true;
  /** `-5`, `--10`: nice's old way to give the adjustment. */
  numericOption?: true;
  /**
   * Stays in the local shell, outside the call to sparehand: `timeout` then bounds the whole run (sync
   * included) and still exits 124; zsh's `noglob` and `nocorrect` are not bash commands a worker could run.
   */
  staysOutside?: true;
}

const NO_OPTIONS = { flags: '', withValue: '', long: {} };
// `--help` and `--version` run no command; knowing them makes `--v` ambiguous, as it is (verbose or version).
const HELP = { help: 'flag', version: 'flag' } as const;
const HELP_NAMES = ['--help', '--version'];

const WRAPPERS = table<Wrapper>({
  timeout: {
    flags: 'fpv',
    withValue: 'ks',
    long: { foreground: 'flag', 'preserve-status': 'flag', verbose: 'flag', 'kill-after': 'value', signal: 'value', ...HELP },
    notFollowed: HELP_NAMES,
    operand: /^[0-9.]+[smhd]?$/,
    staysOutside: true,
  },
  env: {
    flags: 'i0v',
    withValue: 'uC',
    long: {
      'ignore-environment': 'flag',
      null: 'flag',
      unset: 'value',
      chdir: 'value',
      debug: 'flag',
      'block-signal': 'optional',
      'default-signal': 'optional',
      'ignore-signal': 'optional',
      'list-signal-handling': 'flag',
      'split-string': 'value',
      ...HELP,
    },
    // `env -S 'a b'` splits a string into the command: not followed.
    notFollowed: ['-S', '--split-string', ...HELP_NAMES],
    assignments: true,
  },
  'cross-env': { ...NO_OPTIONS, assignments: true },
  'cross-env-shell': { ...NO_OPTIONS, assignments: true },
  nice: { flags: '', withValue: 'n', long: { adjustment: 'value', ...HELP }, notFollowed: HELP_NAMES, numericOption: true },
  ionice: {
    flags: 't',
    withValue: 'cnpPu',
    long: { class: 'value', classdata: 'value', ignore: 'flag', pid: 'value', pgid: 'value', uid: 'value', ...HELP },
    notFollowed: ['-p', '-P', '-u', '--pid', '--pgid', '--uid', ...HELP_NAMES],
  },
  stdbuf: { flags: '', withValue: 'ioe', long: { input: 'value', output: 'value', error: 'value', ...HELP }, notFollowed: HELP_NAMES },
  // GNU time (`/usr/bin/time`, `command time`); bash's own `time` keyword is read by the parser.
  time: {
    flags: 'apqv',
    withValue: 'fo',
    long: { append: 'flag', portability: 'flag', quiet: 'flag', verbose: 'flag', format: 'value', output: 'value', ...HELP },
    notFollowed: HELP_NAMES,
  },
  command: { flags: 'p', withValue: '', long: {}, notFollowed: ['-v', '-V'] },
  exec: { flags: 'cl', withValue: 'a', long: {} },
  builtin: NO_OPTIONS,
  taskset: {
    flags: 'ac',
    withValue: '',
    long: { 'all-tasks': 'flag', 'cpu-list': 'flag', pid: 'flag', ...HELP },
    notFollowed: ['-p', '--pid', ...HELP_NAMES],
    operand: /./,
  },
  chrt: {
    flags: 'bdfioRrav',
    withValue: 'TPD',
    long: {
      batch: 'flag',
      deadline: 'flag',
      fifo: 'flag',
      idle: 'flag',
      other: 'flag',
      rr: 'flag',
      'reset-on-fork': 'flag',
      'all-tasks': 'flag',
      verbose: 'flag',
      'sched-runtime': 'value',
      'sched-period': 'value',
      'sched-deadline': 'value',
      pid: 'flag',
      max: 'flag',
      ...HELP,
    },
    notFollowed: ['-p', '-m', '--pid', '--max', ...HELP_NAMES],
    operand: /^[0-9]+$/,
  },
  noglob: { ...NO_OPTIONS, staysOutside: true },
  nocorrect: { ...NO_OPTIONS, staysOutside: true },
});

// Launchers that run the rest of the line as their command: `uv run pytest`, `bundle exec rspec`.
const RUNNERS = table<string>({ uv: 'run', poetry: 'run', pdm: 'run', pipenv: 'run', hatch: 'run', rye: 'run', bundle: 'exec', pipx: 'run' });
const RUNNER_VALUE = new Set([
  '--with',
  '--python',
  '-p',
  '--extra',
  '--group',
  '--package',
  '--env-file',
  '--directory',
  '--project',
  '-e',
  '--env',
  '--spec',
]);
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/;
const NUMERIC_OPTION = /^--?[0-9]+$/;

/** A launcher that runs its command in an environment of its own making (`uv run`, `bundle exec`, `nix develop -c`). */
export const isRunner = (program: string): boolean => {
  const name = basename(program);
  return RUNNERS.has(name) || name === 'uvx' || name === 'nix';
};

/** Where the command a wrapper runs starts in `argv` (its name first), or -1 when `argv` is no wrapper or cannot be followed. */
export function commandStart(argv: readonly string[]): number {
  const name = basename(argv[0] as string);
  const wrapper = WRAPPERS.get(name);
  if (wrapper) return afterWrapper(argv, wrapper);
  const verb = RUNNERS.get(name);
  if (verb) return argv[1] === verb ? positional(argv, RUNNER_VALUE, 2) : -1;
  if (name === 'uvx') return positional(argv, RUNNER_VALUE, 1);
  if (name === 'nix') return nixCommand(argv);
  return -1;
}

function afterWrapper(argv: readonly string[], w: Wrapper): number {
  let i = 1;
  if (w.numericOption) while (NUMERIC_OPTION.test(argv[i] ?? '')) i++;
  i = skipOptions(argv, i, w);
  if (i < 0) return -1;
  if (w.assignments) {
    if (argv[i] === '-' && w.flags.includes('i')) i++; // `env -` is `env -i`
    while (ASSIGN.test(argv[i] ?? '')) i++;
  }
  if (w.operand) {
    if (!w.operand.test(argv[i] ?? '')) return -1;
    i++;
  }
  return i < argv.length ? i : -1;
}

// `nix develop [installable] [options] -c|--command CMD…` and `nix shell INSTALLABLES… -c CMD…`.
function nixCommand(argv: readonly string[]): number {
  if (argv[1] !== 'develop' && argv[1] !== 'shell') return -1;
  const c = argv.findIndex((a, i) => i > 1 && (a === '-c' || a === '--command'));
  return c > 0 && c + 1 < argv.length ? c + 1 : -1;
}

/** How many leading words (wrappers that stay outside, with their options) stay in the local shell: 0 when none. */
export function wordsOutside(argv: readonly string[]): number {
  let from = 0;
  for (;;) {
    const w = WRAPPERS.get(argv[from] ?? '');
    if (!w?.staysOutside) return from;
    const i = afterWrapper(argv.slice(from), w);
    if (i < 0) return from;
    from += i;
  }
}
