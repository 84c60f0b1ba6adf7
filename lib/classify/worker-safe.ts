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

/** A word that would mean something else on the worker, or undefined. */
function wordProblem(w: Word): NoCut | undefined {
  if (w.substitution) return { rule: 'local: command substitution', why: 'runs a command substitution, which would run on the worker' };
  if (w.expansion !== undefined) return { rule: `local: expands ${w.expansion}`, why: `expands ${w.expansion}, which the worker would not see the same` };
  if (w.tilde) return { rule: `local: path outside the project: ${w.value}`, why: `names ${w.value}, which is not on the worker` };
  const eq = w.value.indexOf('=/');
  const path = w.value.startsWith('/') ? w.value : eq >= 0 ? w.value.slice(eq + 1) : '';
  if (path && !path.startsWith('//') && !isSystem(path)) return { rule: `local: path outside the project: ${path}`, why: `names ${path}, which is not on the worker` };
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
  for (const w of c.assignments) {
    const p = wordProblem(w);
    if (p) return p;
  }
  for (let i = from; i < c.words.length; i++) {
    const p = wordProblem(c.words[i] as Word);
    if (p) return p;
  }
  for (const r of redirects) {
    const p = wordProblem(r.target);
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
