// Whether a part of a command runs on a worker with the effect it has here: no expansion the worker would
// see otherwise, no path outside the project, no part sparehand does not know, no background job.
import type { Verdict } from './kinds.js';
import type { Redirect, Word } from './lex.js';
import type { Command, ListItem, SimpleCommand } from './parse.js';

/** The verdict of every simple command of a parsed command line. */
export type Verdicts = Map<SimpleCommand, Verdict>;

/** Why a heavy command cannot be cut safely: its rule text and half a sentence. */
export interface NoCut {
  rule: string;
  why: string;
}

// `//…` is a bazel label, not a path. Absolute paths that are the same on any machine of the kind (toolchains, /dev/null); anything else is not on the worker.
const SYSTEM = ['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/', '/usr/', '/bin/', '/sbin/', '/lib/', '/opt/'];
const isSystem = (p: string): boolean => SYSTEM.some((s) => p === s || p.startsWith(s) || (s.endsWith('/') && p === s.slice(0, -1)));

/**
 * The parts of a word that may be paths: the word, what follows its first `=` (`--outputFile=../r.json`,
 * `OUT=../r.txt`), each part of a `:` list after it (`X=a:~/b`), and what follows a short option's letter
 * (`-o../x`, `-I/src`).
 */
function pathsIn(value: string): string[] {
  const out = [value];
  const eq = value.indexOf('=');
  if (eq >= 0) out.push(...value.slice(eq + 1).split(':'));
  const short = /^-[A-Za-z]([/~.].*)$/.exec(value);
  if (short) out.push(short[1] as string);
  return out;
}

/** Whether a relative path climbs more than `below` folders up (`..`, `../x`, `a/../../x`). */
function leaves(p: string, below: number): boolean {
  let depth = below;
  for (const part of p.split('/')) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
    if (depth < 0) return true;
  }
  return false;
}

const outside = (path: string, why: string): NoCut => ({ rule: `local: path outside the project: ${path}`, why: `names ${path}, ${why}` });

/** A word that would mean something else on the worker, or undefined. */
function wordProblem(w: Word, below = 0, program = false): NoCut | undefined {
  if (w.substitution) return { rule: 'local: command substitution', why: 'runs a command substitution, which would run on the worker' };
  if (w.expansion !== undefined) return { rule: `local: expands ${w.expansion}`, why: `expands ${w.expansion}, which the worker would not see the same` };
  if (w.tilde) return outside(w.value, 'which is not on the worker');
  for (const path of pathsIn(w.value)) {
    // (bash expands `~` after `=` and `:` in `X=~/a` even as an argument: the worker's HOME.)
    if (path.startsWith('~') && !w.quoted) return outside(path, "which is the worker's HOME there");
    if (path.startsWith('/') && !path.startsWith('//') && !isSystem(path)) return outside(path, 'which is not on the worker');
    // A path that climbs out of the folder the command runs in (the project's root, at most): on the worker, that is
    // beside the copy, not this machine's folder; what the command writes there never comes back.
    // (The program's own path is judged by the program rules: the project's wrappers and node_modules/.bin above.)
    if (!program && !path.startsWith('/') && !/^[a-z][a-z0-9+.-]*:/i.test(path) && leaves(path, below))
      return outside(path, 'which is outside the folder it runs in: on the worker that is beside the copy, and nothing written there comes back');
  }
  return undefined;
}

/** A command's first two words, to name it in a rule. */
export const label = (c: SimpleCommand): string => {
  const [first, second] = c.words;
  return first === undefined ? 'assignment' : second === undefined ? first.value : `${first.value} ${second.value}`;
};

/** Whether one simple command (from its word `from`, with these redirects inside) runs the same on a worker. */
export function simpleProblem(c: SimpleCommand, verdicts: Verdicts, from: number, redirects: readonly Redirect[]): NoCut | undefined {
  const v = verdicts.get(c) as Verdict;
  if (v.kind !== 'heavy' && v.kind !== 'light') {
    return { rule: `local: not known to be safe on a worker: ${label(c)}`, why: `also runs ${label(c)}, which sparehand does not know to be safe on a worker` };
  }
  const first = c.words[from];
  if (first?.value === 'cd' && (c.words.length === from + 1 || c.words[from + 1]?.value === '-')) {
    return { rule: 'local: cd outside the project', why: 'changes to a folder that is not on the worker' };
  }
  for (const w of [...c.assignments, ...c.words.slice(from), ...redirects.map((r) => r.target)]) {
    const p = wordProblem(w, c.below, w === c.words[from]);
    if (p) return p;
  }
  return undefined;
}

export function commandProblem(c: Command, verdicts: Verdicts): NoCut | undefined {
  if (c.kind === 'simple') return simpleProblem(c, verdicts, 0, c.redirects);
  for (const r of c.redirects) {
    const p = wordProblem(r.target);
    if (p) return p;
  }
  return listProblem(c.body, verdicts);
}

export const BACKGROUND: NoCut = { rule: 'local: background job', why: 'starts a background job, which would be cut short on a worker' };

/** Whether a whole list runs the same on a worker (`lastAmp`: a final `&` that stays outside is fine). */
export function listProblem(items: readonly ListItem[], verdicts: Verdicts, lastAmp = false): NoCut | undefined {
  for (const [i, item] of items.entries()) {
    if (item.operator === '&' && !(lastAmp && i === items.length - 1)) return BACKGROUND;
    for (const c of item.pipeline.commands) {
      const p = commandProblem(c, verdicts);
      if (p) return p;
    }
  }
  return undefined;
}

export function hasHeavy(c: Command, verdicts: Verdicts): boolean {
  return c.kind === 'simple' ? verdicts.get(c)?.kind === 'heavy' : c.body.some((item) => item.pipeline.commands.some((x) => hasHeavy(x, verdicts)));
}
