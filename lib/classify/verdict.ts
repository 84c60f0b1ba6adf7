// One simple command → a Verdict: the user's rules first, then wrappers (env, timeout…), `bash -c`, built-ins.
import { basename, light, local, NONE, type Verdict } from './kinds.js';
import { isLiteral, type Word } from './lex.js';
import { builtin } from './rules.js';
import { script } from './rules-scripts.js';
import type { RuleChanges } from './types.js';
import { commandStart } from './wrappers.js';

/** A word as the rules see it: its value, and what tells whether that value is exactly what bash passes (`isLiteral`). */
export type Arg = Pick<Word, 'value' | 'expansion' | 'substitution' | 'ansiQuoted'>;
const plain = (value: string): Arg => ({ value, expansion: undefined, substitution: false, ansiQuoted: false });

/** Classifies a nested shell program (the string after `bash -c`) as a whole. */
export type Nested = (src: string) => Verdict;

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh']);
const SCRIPT_RUNNERS = new Set(['hatch', 'pdm', 'rye', 'pipenv']);
const splitCache = new WeakMap<readonly string[], string[][]>();

function splitRules(rules: readonly string[]): string[][] {
  let s = splitCache.get(rules);
  if (!s) {
    s = rules.map((r) => String(r).trim().split(/\s+/).filter(Boolean)).filter((r) => r.length > 0);
    splitCache.set(rules, s);
  }
  return s;
}

// A rule is a prefix by words; the first word also matches by basename, a trailing `*` matches a word's start.
function matches(rule: readonly string[], argv: readonly string[]): boolean {
  if (rule.length > argv.length) return false;
  for (let i = 0; i < rule.length; i++) {
    const p = rule[i] as string;
    const a = argv[i] as string;
    const star = p.length > 1 && p.endsWith('*');
    const eq = (x: string) => (star ? x.startsWith(p.slice(0, -1)) : x === p);
    if (!eq(a) && !(i === 0 && eq(basename(a)))) return false;
  }
  return true;
}

/** The user's rules: `local` beats `heavy`; undefined when none matches. */
export function userRule(argv: readonly string[], rules: RuleChanges): Verdict | undefined {
  for (const r of rules.local ? splitRules(rules.local) : []) {
    if (matches(r, argv)) return { kind: 'local', rule: `local (config): ${r.join(' ')}`, why: 'matches your local rule' };
  }
  for (const r of rules.heavy ? splitRules(rules.heavy) : []) {
    if (matches(r, argv)) return { kind: 'heavy', rule: `heavy (config): ${r.join(' ')}`, why: 'matches your heavy rule' };
  }
  return undefined;
}

/** The verdict for one command's words (assignments already removed). */
export function verdictOf(argv: readonly Arg[], rules: RuleChanges, nested: Nested): Verdict {
  const strings = argv.map((a) => a.value);
  const user = userRule(strings, rules);
  if (user) return user;
  const program = strings[0] as string;
  const name = basename(program);
  const inner = commandStart(strings);
  if (inner > 0) {
    // `hatch run test`, `pdm run lint`: these launchers run a project script of that name before a program.
    if (SCRIPT_RUNNERS.has(name)) {
      const v = script(`${name} run ${strings[inner]}`, strings[inner] as string, strings.slice(inner + 1));
      if (v !== NONE) return v;
    }
    return verdictOf(argv.slice(inner), rules, nested);
  }
  if (notOnWorker(program)) return local(`program not on the worker: ${program}`, 'elsewhere');
  if (SHELLS.has(name)) return shell(name, argv, nested);
  return builtin(strings, (a) => verdictOf(a.map(plain), rules, nested));
}

// A program reached through `..` (`../cargo`), which is not sent. `../node_modules/.bin/x` is installed on the
// worker from the lock file; `../gradlew` and `../mvnw` are the project's own wrappers. (`.venv/bin/python` is
// made on the worker from the lock or requirements file; where it cannot be, the run checks and runs it here.)
function notOnWorker(program: string): boolean {
  if (!program.includes('/')) return false;
  if (program.includes('node_modules/.bin/')) return false;
  const parts = program.split('/');
  const name = parts[parts.length - 1];
  return parts.includes('..') && name !== 'gradlew' && name !== 'mvnw';
}

// `bash -c 'npm test'`: the string is its own program, classified whole (it runs whole wherever it runs).
function shell(name: string, argv: readonly Arg[], nested: Nested): Verdict {
  let c = false;
  for (let i = 1; i < argv.length; i++) {
    const a = (argv[i] as Arg).value;
    if ((a.startsWith('-') || a.startsWith('+')) && a.length > 1 && a !== '--' && a !== '-') {
      if (a.startsWith('--')) continue;
      if (a.includes('c')) c = true;
      // `-o pipefail`, `-euo pipefail`, `-O extglob`: each o/O in a cluster takes the next word.
      for (const ch of a) if (ch === 'o' || ch === 'O') i++;
    } else if (c) {
      const w = argv[i] as Arg;
      if (!isLiteral(w)) return { kind: 'none', rule: 'none', why: `its ${name} -c string is not plain text` };
      return nested(w.value);
    } else {
      return { kind: 'none', rule: 'none', why: `runs a script with ${name}` };
    }
  }
  return c ? light(`${name} -c`) : local(name, 'interactive');
}
