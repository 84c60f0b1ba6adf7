// Where to cut a heavy command: what runs on the worker (`inner`, an exact substring) and what stays in the
// local shell around it (leading `cd`s, `time`/`timeout`, output redirects, pipes into local readers, `&`).
import type { Verdict } from './kinds.js';
import type { Redirect, Word } from './lex.js';
import type { Command, ListItem, Pipeline, SimpleCommand } from './parse.js';
import { wordsOutside } from './wrappers.js';

/** The verdict of every simple command of a parsed command line. */
export type Verdicts = Map<SimpleCommand, Verdict>;

export interface Cut {
  before: string;
  inner: string;
  after: string;
}
/** Why a heavy command cannot be cut safely: its rule text and half a sentence. */
export interface NoCut {
  rule: string;
  why: string;
}

// `//…` is a bazel label, not a path. Absolute paths that are the same on any machine of the kind (toolchains, /dev/null); anything else is not on the worker.
const SYSTEM = ['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/', '/usr/', '/bin/', '/sbin/', '/lib/', '/opt/'];
const isSystem = (p: string): boolean => SYSTEM.some((s) => p === s || p.startsWith(s) || (s.endsWith('/') && p === s.slice(0, -1)));

// A word that would mean something else on the worker, or undefined.
function wordProblem(w: Word): NoCut | undefined {
  if (w.substitution) return { rule: 'local: command substitution', why: 'runs a command substitution, which would run on the worker' };
  if (w.expansion !== undefined) return { rule: `local: expands ${w.expansion}`, why: `expands ${w.expansion}, which the worker would not see the same` };
  if (w.tilde) return { rule: `local: path outside the project: ${w.value}`, why: `names ${w.value}, which is not on the worker` };
  const eq = w.value.indexOf('=/');
  const path = w.value.startsWith('/') ? w.value : eq >= 0 ? w.value.slice(eq + 1) : '';
  if (path && !path.startsWith('//') && !isSystem(path)) return { rule: `local: path outside the project: ${path}`, why: `names ${path}, which is not on the worker` };
  return undefined;
}

const label = (c: SimpleCommand): string => c.words.slice(0, 2).map((w) => w.value).join(' ') || 'assignment';

/** Whether one simple command (from its word `from`, with these redirects inside) runs the same on a worker. */
function simpleProblem(c: SimpleCommand, verdicts: Verdicts, from: number, redirects: readonly Redirect[]): NoCut | undefined {
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

function commandProblem(c: Command, verdicts: Verdicts): NoCut | undefined {
  if (c.kind === 'simple') return simpleProblem(c, verdicts, 0, c.redirects);
  for (const r of c.redirects) {
    const p = wordProblem(r.target);
    if (p) return p;
  }
  return listProblem(c.body, verdicts);
}

const BACKGROUND: NoCut = { rule: 'local: background job', why: 'starts a background job, which would be cut short on a worker' };

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

const isBareCd = (p: Pipeline, verdicts: Verdicts): boolean => {
  const c = p.commands[0] as Command;
  return (
    p.commands.length === 1 && p.commandStart === p.start && c.kind === 'simple' && c.assignments.length === 0 && c.redirects.length === 0 &&
    c.words[0]?.value === 'cd' && !c.words[0].quoted && verdicts.get(c)?.kind === 'light'
  );
};

/** Cuts the command (top level) into before/inner/after, or says why it cannot. */
export function cut(src: string, items: readonly ListItem[], verdicts: Verdicts): Cut | NoCut {
  let k = 0;
  // Leading `cd x;` always, and `cd x &&` when only `&&` follows (so `a && b || c` keeps its grouping).
  while (k < items.length - 1 && isBareCd((items[k] as ListItem).pipeline, verdicts)) {
    const op = (items[k] as ListItem).operator;
    const andOnly = items.slice(k + 1, -1).every((x) => x.operator === '&&');
    if (op === ';' || op === '\n' || (op === '&&' && andOnly)) k++;
    else break;
  }
  const rest = items.slice(k);
  const head = rest[0] as ListItem;
  if (rest.length > 1) {
    // A final `&` stays outside only when it backgrounds the whole list (`a && b &`, not `a; b &`).
    const amp = (rest[rest.length - 1] as ListItem).operator === '&' && rest.slice(0, -1).every((x) => x.operator === '&&' || x.operator === '||');
    const p = listProblem(rest, verdicts, amp);
    if (p) return p;
    const end = (rest[rest.length - 1] as ListItem).pipeline.end;
    return { before: src.slice(0, head.pipeline.start), inner: src.slice(head.pipeline.start, end), after: src.slice(end) };
  }
  const p = head.pipeline;
  const core = p.commands[0] as Command;
  if (!hasHeavy(core, verdicts)) return { rule: 'local: heavy part reads a pipe', why: 'reads its input from a pipe that stays here' };
  let start = p.commandStart;
  let end: number;
  let problem: NoCut | undefined;
  if (core.kind === 'simple') {
    const from = core.assignments.length === 0 ? wordsOutside(core.words.map((w) => w.value)) : 0;
    if (from > 0) start = (core.words[from] as Word).start;
    const allInside = core.redirectBeforeWord || core.redirects.some((r) => r.operator.startsWith('<'));
    end = allInside ? core.end : (core.words[core.words.length - 1] as Word).end;
    problem = simpleProblem(core, verdicts, from, allInside ? core.redirects : []);
  } else {
    const allInside = core.redirects.some((r) => r.operator.startsWith('<'));
    end = allInside ? core.end : core.closeEnd;
    problem = commandProblem(allInside ? core : { ...core, redirects: [] }, verdicts);
  }
  if (problem) return problem;
  return { before: src.slice(0, start), inner: src.slice(start, end), after: src.slice(end) };
}
