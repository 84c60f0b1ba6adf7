// Skipping a program's own options the way GNU getopt reads them, to find the command a wrapper runs:
// clusters (`-vk 5`, `-k5`), `--name=value`, unique abbreviations (`--k 5` for `--kill-after 5`), `--`.

/** How a long option takes its value: none, the next word (or `=value`), or only `=value`. */
export type LongOption = 'flag' | 'value' | 'optional';

/** A program's options, as its `--help` lists them. */
export interface OptionSpec {
  /** Short options without a value, e.g. `vfp`. */
  flags: string;
  /** Short options that take a value (the rest of the cluster, or the next word), e.g. `ks`. */
  withValue: string;
  long: Readonly<Record<string, LongOption>>;
  /** Options after which there is no command to follow (`taskset -p PID`, `chrt -m`, `env -S STRING`). */
  notFollowed?: readonly string[];
}

/** Index of the first word after the options from `from` (stops at the first non-option, as `+` getopt), or -1 when an option is unknown, ambiguous, or means there is no command. */
export function skipOptions(argv: readonly string[], from: number, spec: OptionSpec): number {
  let i = from;
  while (i < argv.length) {
    const a = argv[i] as string;
    if (a === '--') return i + 1;
    if (a.length < 2 || a[0] !== '-') return i;
    const next = a.startsWith('--') ? longOption(a, spec) : shortCluster(a, spec);
    if (next < 0) return -1;
    i += next;
  }
  return i;
}

// How many words `-abc` (with its value) takes: 1 or 2; -1 when unknown or it means no command.
function shortCluster(a: string, spec: OptionSpec): number {
  for (let j = 1; j < a.length; j++) {
    const c = a[j] as string;
    if (spec.notFollowed?.includes(`-${c}`)) return -1;
    if (spec.withValue.includes(c)) return j + 1 < a.length ? 1 : 2;
    if (!spec.flags.includes(c)) return -1;
  }
  return 1;
}

// How many words `--name[=value]` takes: 1 or 2; -1 when unknown, ambiguous or it means no command.
function longOption(a: string, spec: OptionSpec): number {
  const eq = a.indexOf('=');
  const written = eq < 0 ? a.slice(2) : a.slice(2, eq);
  const name = longName(written, spec.long);
  if (name === undefined || spec.notFollowed?.includes(`--${name}`)) return -1;
  const kind = spec.long[name] as LongOption;
  if (eq >= 0) return kind === 'flag' ? -1 : 1;
  return kind === 'value' ? 2 : 1;
}

/** The long option `written` names: itself, or the only one it abbreviates. */
function longName(written: string, long: Readonly<Record<string, LongOption>>): string | undefined {
  if (written === '') return undefined;
  if (Object.hasOwn(long, written)) return written;
  let found: string | undefined;
  for (const name in long) {
    if (!name.startsWith(written)) continue;
    if (found !== undefined) return undefined;
    found = name;
  }
  return found;
}
