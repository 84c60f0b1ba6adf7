// What one simple command is: heavy, light (quick, safe on a worker), must stay local, or unknown.

/** heavy: send it; light: not worth sending but safe inside a sent chain; local: must run here; none: not known. */
export type Kind = 'heavy' | 'light' | 'local' | 'none';

export interface Verdict {
  kind: Kind;
  /** Stable rule text, e.g. `heavy: cargo test`, `local: npm install`, `local (config): npm test`. */
  rule: string;
  /** Half a sentence: what the command does, e.g. `runs tests`. */
  why: string;
}

/** What a command does, as half a sentence: the reason a rule gives. */
const WHY = {
  tests: 'runs tests',
  build: 'builds the project',
  types: 'type-checks the project',
  check: 'checks the whole project',
  lint: 'lints the whole project',
  bench: 'runs benchmarks',
  install: 'installs or changes dependencies on this machine',
  server: 'starts a long-lived server',
  watch: 'watches for changes and does not end',
  run: 'runs the program itself (interactive or long-lived)',
  world: 'changes this machine or the outside world',
  vcs: 'works on the git repository, which stays here',
  interactive: 'is interactive',
  clean: 'deletes files (a worker cannot delete them here)',
  configure: 'configures the build with this machine’s paths',
  buildTree: 'works in the build folder configured here with this machine’s paths, which the worker does not have',
  quick: 'is quick: not worth a trip to a worker',
  help: 'only prints help or a version',
  machine: 'needs this machine (sudo, a simulator, a device)',
  elsewhere: 'lives outside the tree sent to the worker',
} as const;
/** What a command does (`tests`, `build`, `install`…): the key of its reason. */
export type Category = keyof typeof WHY;

export const heavy = (label: string, category: Category): Verdict => ({ kind: 'heavy', rule: `heavy: ${label}`, why: WHY[category] });
export const local = (label: string, category: Category): Verdict => ({ kind: 'local', rule: `local: ${label}`, why: WHY[category] });
export const light = (label: string, category: Category = 'quick'): Verdict => ({ kind: 'light', rule: `light: ${label}`, why: WHY[category] });
export const NONE: Verdict = { kind: 'none', rule: 'none', why: 'matches no heavy-command rule' };

/** A rule table written as an object, read as a Map: fast, and `constructor` or `toString` is no key of it. */
export const table = <T>(entries: Readonly<Record<string, T>>): ReadonlyMap<string, T> => new Map(Object.entries(entries));

/** `--watch` and friends anywhere in the arguments; `-w` too where the tool says it means watch. */
export function watching(args: readonly string[], dashW = false): string | undefined {
  for (const a of args) {
    if (a === '--watch' || a === '--watchAll' || a === '--watch-all') return a;
    if ((a.startsWith('--watch=') || a.startsWith('--watchAll=')) && !a.endsWith('=false') && !a.endsWith('=0')) return a;
    if (dashW && a === '-w') return a;
  }
  return undefined;
}

// Short options that only print a version, where the program gives them that meaning (`-v` is verbose for
// cargo, go and ctest; `mvn -V` shows the version and builds on). `--help` and `--version` hold everywhere.
const VERSION_SHORT = table<readonly string[]>({
  make: ['-v'],
  gmake: ['-v'],
  mvn: ['-v', '-version'],
  mvnw: ['-v', '-version'],
  gradle: ['-v'],
  gradlew: ['-v'],
  cargo: ['-V'],
  pytest: ['-V'],
  'py.test': ['-V'],
  mypy: ['-V'],
  node: ['-v'],
  deno: ['-V'],
  jest: ['-v'],
  vitest: ['-v'],
  eslint: ['-v'],
  mocha: ['-V'],
  tsc: ['-v'],
});

/** The option that makes the program only print help or its version, or undefined. */
export function printsOnly(name: string, args: readonly string[]): string | undefined {
  if (args.includes('--help')) return '--help';
  if (args.includes('--version')) return '--version';
  const short = VERSION_SHORT.get(name);
  return short && args.find((a) => short.includes(a));
}

/** The first argument that is not an option, skipping the values of the options named in `withValue`. */
export function positional(args: readonly string[], withValue: ReadonlySet<string> = EMPTY, from = 0): number {
  for (let i = from; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') return i + 1 < args.length ? i + 1 : -1;
    if (a.startsWith('-') || a.startsWith('+')) {
      if (withValue.has(a)) i++;
      continue;
    }
    return i;
  }
  return -1;
}
const EMPTY: ReadonlySet<string> = new Set();

export const basename = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
};
