// How to run one test command as N shards: the runner it starts (through npm scripts, npx, env and the other
// wrappers the classifier knows) and each shard's command, or the one line that says why it runs whole. Pure:
// what it reads of the project comes through a ProjectView.
import { bashQuote } from '../classify/index.js';
import { basename, positional, watching } from '../classify/kinds.js';
import { isLiteral, type Word } from '../classify/lex.js';
import { type ListItem, parse } from '../classify/parse.js';
import { commandStart } from '../classify/wrappers.js';
import { isSparehandError } from '../errors.js';
import { goPackages, pytestFiles, pytestSettings } from './files.js';
import type { ProjectView } from './view.js';

export type Runner = 'vitest' | 'jest' | 'playwright' | 'node' | 'nextest' | 'pytest' | 'go';

/** The shards' commands (at least two), in shard order, and how they were made (`vitest --shard`). */
export type Plan = { runner: Runner; how: string; shards: string[] } | { whole: string };

/** A text edit of the command: `text` in place of [start, end). */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/** What was found in a command: a runner that takes a shard option (where it goes), or units to share out. */
type Found =
  | { runner: Runner; flag: (i: number, n: number) => string; after: number; atEnd: boolean }
  | { runner: Runner; units: string[]; replace: Word[]; after: number; unit: string; unlisted?: true }
  | { whole: string };

const HOW: Record<Runner, string> = {
  vitest: 'vitest --shard',
  jest: 'jest --shard',
  playwright: 'playwright --shard',
  node: 'node --test-shard',
  nextest: 'cargo nextest --partition',
  pytest: 'pytest by test file',
  go: 'go test by package',
};

/**
 * Whether `command` is one the planner splits, without walking the project for test files or packages (the hook's
 * question: the run itself makes the plan, and says why when it then runs whole).
 */
export function canSplit(command: string, view: ProjectView): boolean {
  const plan = planWith(command, 2, { ...view, walk: false });
  return 'shards' in plan || 'unlisted' in plan;
}

/** The shards of `command` (run in `dir`, relative to the view's folder) for `count` slots. */
export function planSplit(command: string, count: number, view: ProjectView): Plan {
  const plan = planWith(command, count, view);
  return 'unlisted' in plan ? { whole: `sparehand did not list its ${plan.unlisted}` } : plan;
}

/** The plan, or (with a view that does not walk) the runner whose units were not listed. */
function planWith(command: string, count: number, view: ProjectView): Plan | { unlisted: string } {
  if (!Number.isInteger(count) || count < 2) return { whole: 'one shard: nothing to split' };
  let items: ListItem[];
  try {
    items = parse(command);
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return { whole: `sparehand cannot follow the command (${e.message})` };
  }
  // `cd pkg && npm test`: the folder the runner starts in.
  let dir = '.';
  while (items.length > 1 && items[0]?.operator === '&&') {
    const cd = cdTarget(items[0]);
    if (cd === undefined) break;
    if (cd.startsWith('/')) return { whole: 'it goes to a folder named by its absolute path first' };
    dir = dir === '.' ? cd : `${dir}/${cd}`;
    items = items.slice(1);
  }
  const last = items[0];
  if (items.length !== 1 || (last && last.operator !== '' && last.operator !== ';' && last.operator !== '\n'))
    return { whole: 'it is not one test command (a chain or a list): sparehand splits one runner' };
  const p = last?.pipeline;
  const only = p?.commands.length === 1 ? p.commands[0] : undefined;
  if (only?.kind !== 'simple') return { whole: 'it is not one test command (a pipe or a subshell): sparehand splits one runner' };
  const found = find(only.words, 0, view, dir, 0);
  if ('whole' in found) return found;
  const words = only.words;
  if ('flag' in found) {
    const end = words[found.after]?.end as number;
    const shards = Array.from({ length: count }, (_, k) => edit(command, [{ start: end, end, text: ` ${found.flag(k + 1, count)}` }]));
    return { runner: found.runner, how: HOW[found.runner], shards };
  }
  if (found.unlisted) return { unlisted: `${found.unit}s` };
  const n = Math.min(count, found.units.length);
  if (n < 2) return { whole: `it has ${found.units.length === 0 ? 'no' : 'one'} ${found.unit} to share out` };
  const end = words[found.after]?.end as number;
  const shards = Array.from({ length: n }, (_, k) => {
    const mine = found.units.filter((_, j) => j % n === k);
    const edits: Edit[] = found.replace.map((w) => ({ start: spaceBefore(command, w.start), end: w.end, text: '' }));
    edits.push({ start: end, end, text: ` ${mine.map(quoted).join(' ')}` });
    return edit(command, edits);
  });
  return { runner: found.runner, how: HOW[found.runner], shards };
}

const quoted = (s: string): string => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : bashQuote(s));

function spaceBefore(src: string, at: number): number {
  let i = at;
  while (i > 0 && (src[i - 1] === ' ' || src[i - 1] === '\t')) i--;
  return i;
}

function edit(src: string, edits: readonly Edit[]): string {
  let out = src;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

function cdTarget(item: ListItem): string | undefined {
  const [c, ...more] = item.pipeline.commands;
  if (!c || more.length > 0 || c.kind !== 'simple' || c.assignments.length > 0 || c.words.length !== 2 || c.redirects.length > 0) return undefined;
  const [cd, target] = c.words as [Word, Word];
  if (cd.value !== 'cd' || !isLiteral(target) || target.tilde || target.value.startsWith('-')) return undefined;
  return target.value.replace(/\/+$/, '') || undefined;
}

const NPX = new Set(['npx', 'bunx', 'pnpx']);
const PYTHON = /^python(3(\.[0-9]+)?)?$/;
// Options of pytest and go test whose value is the next word (when not written `--opt=value`).
const PYTEST_VALUE = new Set([
  '-k',
  '-m',
  '-p',
  '-c',
  '-o',
  '-n',
  '-W',
  '-r',
  '--rootdir',
  '--junitxml',
  '--junit-xml',
  '--ignore',
  '--deselect',
  '--basetemp',
  '--durations',
  '--tb',
  '--maxfail',
  '--log-level',
  '--override-ini',
  '--confcutdir',
  '--dist',
  '--numprocesses',
]);
const GO_VALUE = new Set([
  '-run',
  '-skip',
  '-bench',
  '-benchtime',
  '-count',
  '-cpu',
  '-timeout',
  '-p',
  '-parallel',
  '-tags',
  '-coverprofile',
  '-covermode',
  '-coverpkg',
  '-o',
  '-mod',
  '-modfile',
  '-ldflags',
  '-gcflags',
  '-shuffle',
  '-list',
  '-C',
  '-vet',
  '-fuzz',
  '-fuzztime',
]);

/** The runner that `words[at…]` starts, looked for through launchers, wrappers and package scripts (`depth` deep). */
function find(words: readonly Word[], at: number, view: ProjectView, dir: string, depth: number): Found {
  const argv = words.map((w) => w.value);
  for (let guard = 0; guard < 8; guard++) {
    const w = words[at];
    if (!w) return { whole: 'it runs no program sparehand can see' };
    if (!isLiteral(w)) return { whole: `the program is named by an expansion (${w.expansion ?? '$(…)'}): sparehand cannot tell which runner it is` };
    const name = basename(w.value);
    const rest = argv.slice(at + 1);
    if (rest.some((a) => /^--(shard|test-shard|partition)(=|$)/.test(a))) return { whole: 'it already picks its own shard' };
    const wrapped = commandStart(argv.slice(at));
    if (wrapped > 0) {
      at += wrapped;
      continue;
    }
    if (NPX.has(name)) {
      const i = positional(argv, new Set(['-p', '--package']), at + 1);
      if (i < 0) return { whole: `${name} runs nothing here` };
      at = i;
      continue;
    }
    if ((name === 'npm' && (argv[at + 1] === 'exec' || argv[at + 1] === 'x')) || ((name === 'pnpm' || name === 'yarn') && argv[at + 1] === 'exec')) {
      const i = positional(argv, new Set(['-p', '--package']), at + 2);
      if (i < 0) return { whole: `${name} exec runs nothing here` };
      at = i;
      continue;
    }
    const manager = managerScript(name, argv, at, view, dir);
    if (manager) return manager === 'bin' ? atTool(words, at + 1, view, dir) : viaScript(manager, words, view, dir, depth);
    return atTool(words, at, view, dir);
  }
  return { whole: 'it nests too many launchers to follow' };
}

/** `npm test`, `npm run X`, `pnpm X`, `yarn X`, `bun run X`: the script it runs; 'bin' for `pnpm vitest` with no such script. */
function managerScript(
  name: string,
  argv: readonly string[],
  at: number,
  view: ProjectView,
  dir: string,
): { manager: string; script: string; last: number } | 'bin' | undefined {
  const sub = argv[at + 1];
  if (sub === undefined) return undefined;
  const last = argv.length - 1;
  if (name === 'npm' && (sub === 'test' || sub === 't' || sub === 'tst')) return { manager: name, script: 'test', last };
  if ((name === 'npm' || name === 'pnpm' || name === 'yarn' || name === 'bun') && (sub === 'run' || sub === 'run-script')) {
    const s = argv[at + 2];
    return s === undefined || s.startsWith('-') ? undefined : { manager: name, script: s, last };
  }
  if ((name === 'pnpm' || name === 'yarn') && !sub.startsWith('-')) {
    if (sub === 'test' || scriptsOf(view, dir)?.[sub] !== undefined) return { manager: name, script: sub, last };
    return 'bin';
  }
  return undefined;
}

function scriptsOf(view: ProjectView, dir: string): Record<string, unknown> | undefined {
  const text = view.read(dir === '.' ? 'package.json' : `${dir}/package.json`);
  if (text === undefined) return undefined;
  try {
    const pkg = JSON.parse(text) as { scripts?: unknown };
    return pkg.scripts && typeof pkg.scripts === 'object' ? (pkg.scripts as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A package script: its runner must take the shard option at the end of the script, where the manager appends it. */
function viaScript(s: { manager: string; script: string; last: number }, words: readonly Word[], view: ProjectView, dir: string, depth: number): Found {
  if (depth >= 3) return { whole: 'its scripts call each other too deep to follow' };
  const scripts = scriptsOf(view, dir);
  const text = scripts?.[s.script];
  if (typeof text !== 'string') return { whole: `package.json has no "${s.script}" script sparehand can read` };
  for (const hook of [`pre${s.script}`, `post${s.script}`])
    if (typeof scripts?.[hook] === 'string') return { whole: `package.json has a "${hook}" script, which every shard would run again` };
  let items: ListItem[];
  try {
    items = parse(text);
  } catch {
    return { whole: `sparehand cannot follow the "${s.script}" script` };
  }
  const only = items.length === 1 && items[0]?.pipeline.commands.length === 1 ? items[0].pipeline.commands[0] : undefined;
  if (only?.kind !== 'simple') return { whole: `the "${s.script}" script is not one test command (${text})` };
  const inner = find(only.words, 0, view, dir, depth + 1);
  if ('whole' in inner) return { whole: `the "${s.script}" script: ${inner.whole}` };
  if (!('flag' in inner) || !inner.atEnd)
    return { whole: `the "${s.script}" script runs ${HOW[inner.runner].split(' ')[0]} in a way that a shard option cannot be added to from outside` };
  const passed = words.slice(1).some((w) => w.value === '--');
  const dashes = s.manager === 'npm' && !passed ? '-- ' : '';
  return { runner: inner.runner, flag: (i, n) => `${dashes}${inner.flag(i, n)}`, after: s.last, atEnd: true };
}

/** The runner itself, at `words[at]`. */
function atTool(words: readonly Word[], at: number, view: ProjectView, dir: string): Found {
  const argv = words.map((w) => w.value);
  const name = basename(argv[at] ?? '').replace(/@[^/]*$/, '');
  const args = argv.slice(at + 1);
  const last = words.length - 1;
  const sub = args[positional(args)] ?? '';
  switch (name) {
    case 'vitest': {
      if (watching(args, true) || sub === 'watch' || sub === 'dev') return { whole: 'vitest watches (a watch mode never ends)' };
      if (sub === 'bench') return { whole: 'vitest bench measures: a bench is not split' };
      return { runner: 'vitest', flag: (i, n) => `--shard=${i}/${n} --passWithNoTests`, after: last, atEnd: true };
    }
    case 'jest':
      if (watching(args)) return { whole: 'jest watches (a watch mode never ends)' };
      return { runner: 'jest', flag: (i, n) => `--shard=${i}/${n} --passWithNoTests`, after: last, atEnd: true };
    case 'playwright':
      if (args[0] !== 'test') return { whole: `playwright ${args[0] ?? ''} is not a test run` };
      return { runner: 'playwright', flag: (i, n) => `--shard=${i}/${n}`, after: last, atEnd: true };
    case 'node':
    case 'nodejs': {
      // Node's own options come before the script (or the test files): --test-shard goes right after --test.
      let t = -1;
      for (let k = 0; k < args.length && args[k]?.startsWith('-'); k++) if (args[k] === '--test') t = k;
      if (t < 0) return { whole: 'node runs a script, not its test runner (`node --test`)' };
      if (args.includes('--watch')) return { whole: 'node --test --watch never ends' };
      const after = at + 1 + t;
      return { runner: 'node', flag: (i, n) => `--test-shard=${i}/${n}`, after, atEnd: after === last };
    }
    case 'cargo': {
      let k = 0;
      if (args[k]?.startsWith('+')) k++;
      if (args[k] === 'nextest' && args[k + 1] === 'run')
        return { runner: 'nextest', flag: (i, n) => `--partition count:${i}/${n}`, after: at + 2 + k, atEnd: at + 2 + k === last };
      if (args[k] === 'test') return { whole: 'cargo test cannot shard itself (cargo nextest can: `cargo nextest run`)' };
      return { whole: `cargo ${args[k] ?? ''} is not a test run sparehand can split` };
    }
    case 'pytest':
    case 'py.test':
      return byFile(words, at + 1, view, dir);
    case 'go':
      if (args[0] !== 'test') return { whole: `go ${args[0] ?? ''} is not a test run` };
      return byPackage(words, at + 2, view, dir);
    default:
      if (PYTHON.test(name) && args[0] === '-m' && args[1] === 'pytest') return byFile(words, at + 3, view, dir);
      return { whole: `${name} is not a test runner sparehand can split (vitest, jest, Playwright, node --test, cargo nextest, pytest, go test)` };
  }
}

/** pytest: the test files its paths (or the project) hold, shared out; the paths given are replaced by each shard's files. */
function byFile(words: readonly Word[], from: number, view: ProjectView, dir: string): Found {
  const paths: Word[] = [];
  for (let k = from; k < words.length; k++) {
    const w = words[k] as Word;
    if (!isLiteral(w)) return { whole: `pytest is given ${w.expansion ?? 'a $(…)'}: sparehand cannot list its files` };
    if (w.value === '--') return { whole: 'pytest is given `--`: sparehand cannot tell its paths' };
    if (w.value.startsWith('-')) {
      if (PYTEST_VALUE.has(w.value)) k++;
      continue;
    }
    paths.push(w);
  }
  if (view.walk === false) return { runner: 'pytest', units: [], replace: paths, after: words.length - 1, unit: 'test file', unlisted: true };
  const under = (p: string) => (dir === '.' || p.startsWith('/') ? p : `${dir}/${p}`);
  let roots = paths.map((w) => w.value);
  if (roots.length === 0) {
    const settings = pytestSettings(view);
    if (settings.changesFiles) return { whole: `pytest's ${settings.changesFiles}: sparehand cannot list its files` };
    roots = settings.testpaths ?? ['.'];
  }
  const listed = pytestFiles(view, roots.map(under));
  if ('why' in listed) return { whole: listed.why };
  const back = (f: string) => (dir === '.' || f.startsWith('/') ? f : f.slice(dir.length + 1));
  return { runner: 'pytest', units: listed.files.map(back), replace: paths, after: words.length - 1, unit: 'test file' };
}

/** go test: the packages of its `./...` patterns, shared out; the patterns are replaced by each shard's packages. */
function byPackage(words: readonly Word[], from: number, view: ProjectView, dir: string): Found {
  const patterns: Word[] = [];
  let end = words.length - 1;
  for (let k = from; k < words.length; k++) {
    const w = words[k] as Word;
    if (!isLiteral(w)) return { whole: `go test is given ${w.expansion ?? 'a $(…)'}: sparehand cannot list its packages` };
    if (w.value === '-args') {
      end = k - 1;
      break;
    }
    if (w.value.startsWith('-')) {
      if (GO_VALUE.has(w.value)) k++;
      continue;
    }
    if (!(w.value === '.' || w.value.startsWith('./'))) return { whole: `go test is given ${w.value}: sparehand splits only packages named by ./ paths` };
    patterns.push(w);
  }
  if (patterns.length === 0) return { whole: 'go test runs one package here' };
  if (view.walk === false) return { runner: 'go', units: [], replace: patterns, after: end, unit: 'package', unlisted: true };
  const inDir = (p: string) => (dir === '.' ? p : `./${dir}/${p.replace(/^\.\/?/, '')}`);
  const back = (d: string) => (dir === '.' ? d : d === `./${dir}` ? '.' : `./${d.slice(`./${dir}/`.length)}`);
  const units: string[] = [];
  for (const w of patterns) {
    if (!w.value.endsWith('/...')) {
      units.push(w.value);
      continue;
    }
    const found = goPackages(view, inDir(w.value));
    if (found === undefined) return { whole: `${w.value} holds too many files to list` };
    units.push(...found.map(back));
  }
  return { runner: 'go', units: [...new Set(units)], replace: patterns, after: end, unit: 'package' };
}
