// Where to cut a heavy command: what runs on the worker (`inner`, an exact substring) and what stays in the
// local shell around it (leading `cd`s, `time`/`timeout`, output redirects, pipes into local readers, `&`).
import type { Verdict } from './kinds.js';
import { EXP, SUBST, TILDE, type Redir, type Word } from './lex.js';
import type { Cmd, Item, Pipeline, Simple } from './parse.js';
import { afterTimeout } from './verdict.js';

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
  if (w.f & SUBST) return { rule: 'local: command substitution', why: 'runs a command substitution, which would run on the worker' };
  if (w.f & EXP) return { rule: `local: expands ${w.x}`, why: `expands ${w.x}, which the worker would not see the same` };
  if (w.f & TILDE) return { rule: `local: path outside the project: ${w.v}`, why: `names ${w.v}, which is not on the worker` };
  const eq = w.v.indexOf('=/');
  const path = w.v.startsWith('/') ? w.v : eq >= 0 ? w.v.slice(eq + 1) : '';
  if (path && !path.startsWith('//') && !isSystem(path)) return { rule: `local: path outside the project: ${path}`, why: `names ${path}, which is not on the worker` };
  return undefined;
}

const label = (c: Simple): string => c.words.slice(0, 2).map((w) => w.v).join(' ') || 'assignment';

/** Whether one simple command (from its word `from`, with these redirects inside) runs the same on a worker. */
function simpleProblem(c: Simple, V: Map<Simple, Verdict>, from: number, redirs: readonly Redir[]): NoCut | undefined {
  const v = V.get(c) as Verdict;
  if (v.kind !== 'heavy' && v.kind !== 'light') {
    return { rule: `local: not known to be safe on a worker: ${label(c)}`, why: `also runs ${label(c)}, which sparehand does not know to be safe on a worker` };
  }
  const first = c.words[from];
  if (first?.v === 'cd' && (c.words.length === from + 1 || c.words[from + 1]?.v === '-')) {
    return { rule: 'local: cd outside the project', why: 'changes to a folder that is not on the worker' };
  }
  for (const w of c.assigns) {
    const p = wordProblem(w);
    if (p) return p;
  }
  for (let i = from; i < c.words.length; i++) {
    const p = wordProblem(c.words[i] as Word);
    if (p) return p;
  }
  for (const r of redirs) {
    const p = wordProblem(r.target);
    if (p) return p;
  }
  return undefined;
}

function cmdProblem(c: Cmd, V: Map<Simple, Verdict>): NoCut | undefined {
  if (c.k === 'simple') return simpleProblem(c, V, 0, c.redirs);
  for (const r of c.redirs) {
    const p = wordProblem(r.target);
    if (p) return p;
  }
  return listProblem(c.body, V);
}

const BACKGROUND: NoCut = { rule: 'local: background job', why: 'starts a background job, which would be cut short on a worker' };

/** Whether a whole list runs the same on a worker (`lastAmp`: a final `&` that stays outside is fine). */
export function listProblem(items: readonly Item[], V: Map<Simple, Verdict>, lastAmp = false): NoCut | undefined {
  for (const [i, it] of items.entries()) {
    if (it.op === '&' && !(lastAmp && i === items.length - 1)) return BACKGROUND;
    for (const c of it.p.cmds) {
      const p = cmdProblem(c, V);
      if (p) return p;
    }
  }
  return undefined;
}

export function hasHeavy(c: Cmd, V: Map<Simple, Verdict>): boolean {
  return c.k === 'simple' ? V.get(c)?.kind === 'heavy' : c.body.some((it) => it.p.cmds.some((x) => hasHeavy(x, V)));
}

const isBareCd = (p: Pipeline, V: Map<Simple, Verdict>): boolean => {
  const c = p.cmds[0] as Cmd;
  return (
    p.cmds.length === 1 && p.core === p.s && c.k === 'simple' && c.assigns.length === 0 && c.redirs.length === 0 &&
    c.words[0]?.v === 'cd' && c.words[0].f === 0 && V.get(c)?.kind === 'light'
  );
};

/** Cuts the command (top level) into before/inner/after, or says why it cannot. */
export function cut(src: string, items: readonly Item[], V: Map<Simple, Verdict>): Cut | NoCut {
  let k = 0;
  // Leading `cd x;` always, and `cd x &&` when only `&&` follows (so `a && b || c` keeps its grouping).
  while (k < items.length - 1 && isBareCd((items[k] as Item).p, V)) {
    const op = (items[k] as Item).op;
    const andOnly = items.slice(k + 1, -1).every((x) => x.op === '&&');
    if (op === ';' || op === '\n' || (op === '&&' && andOnly)) k++;
    else break;
  }
  const rest = items.slice(k);
  const head = rest[0] as Item;
  if (rest.length > 1) {
    // A final `&` stays outside only when it backgrounds the whole list (`a && b &`, not `a; b &`).
    const amp = (rest[rest.length - 1] as Item).op === '&' && rest.slice(0, -1).every((x) => x.op === '&&' || x.op === '||');
    const p = listProblem(rest, V, amp);
    if (p) return p;
    const end = (rest[rest.length - 1] as Item).p.e;
    return { before: src.slice(0, head.p.s), inner: src.slice(head.p.s, end), after: src.slice(end) };
  }
  const p = head.p;
  const core = p.cmds[0] as Cmd;
  if (!hasHeavy(core, V)) return { rule: 'local: heavy part reads a pipe', why: 'reads its input from a pipe that stays here' };
  let start = p.core;
  let end: number;
  let problem: NoCut | undefined;
  if (core.k === 'simple') {
    let from = 0;
    const t = core.assigns.length === 0 && core.words[0]?.v === 'timeout' ? afterTimeout(core.words.map((w) => w.v)) : -1;
    if (t > 0) {
      from = t;
      start = (core.words[t] as Word).s;
    }
    const allInside = core.mixed || core.redirs.some((r) => r.op.startsWith('<'));
    end = allInside ? core.e : (core.words[core.words.length - 1] as Word).e;
    problem = simpleProblem(core, V, from, allInside ? core.redirs : []);
  } else {
    const allInside = core.redirs.some((r) => r.op.startsWith('<'));
    end = allInside ? core.e : core.close;
    problem = cmdProblem(allInside ? core : { ...core, redirs: [] }, V);
  }
  if (problem) return problem;
  return { before: src.slice(0, start), inner: src.slice(start, end), after: src.slice(end) };
}
