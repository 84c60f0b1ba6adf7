// Tokens → lists of pipelines of commands, with the offsets the rewrite needs. Only the plain shapes agents
// write (chains, pipes, subshells, redirects); compound commands (`if`, `for`, `{ …; }`) are refused.
import { SparehandError } from '../errors.js';
import { lex, type Op, QUOTED, type Redir, type Token, type Word } from './lex.js';

export interface Simple {
  k: 'simple';
  s: number;
  e: number;
  /** `NAME=value` words before the command name. */
  assigns: Word[];
  words: Word[];
  redirs: Redir[];
  /** A redirect stands before the last word (so redirects cannot all be cut off the end). */
  mixed: boolean;
}
export interface Sub {
  k: 'sub';
  s: number;
  e: number;
  /** Offset just after the closing `)`. */
  close: number;
  body: Item[];
  redirs: Redir[];
}
export type Cmd = Simple | Sub;
export interface Pipeline {
  s: number;
  e: number;
  /** Offset of the first command, after `!` and `time [-p]`. */
  core: number;
  cmds: Cmd[];
}
/** A pipeline and the operator after it (`&&`, `||`, `;`, `&`, newline), or '' at the end. */
export interface Item {
  p: Pipeline;
  op: string;
}

const RESERVED = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'select',
  'function', '{', '}', '[[', ']]', 'coproc',
]);
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

const fail = (why: string): never => {
  throw new SparehandError('PARSE', why);
};

/** Parses a whole command string; throws SparehandError('PARSE') naming what it could not follow. */
export function parse(src: string): Item[] {
  const st = { src, toks: lex(src), i: 0 };
  const items = list(st, false);
  if (st.i < st.toks.length) fail(`unexpected ${describe(st.toks[st.i])}`);
  return items;
}

interface State {
  src: string;
  toks: Token[];
  i: number;
}

const describe = (t: Token | undefined): string => (t === undefined ? 'end' : t.t === 'op' ? `"${t.v === '\n' ? '\\n' : t.v}"` : 'word');
const isOp = (t: Token | undefined, ...v: string[]): boolean => t?.t === 'op' && v.includes(t.v);

function skipNewlines(st: State): void {
  while (isOp(st.toks[st.i], '\n')) st.i++;
}

function list(st: State, inSub: boolean): Item[] {
  const items: Item[] = [];
  skipNewlines(st);
  for (;;) {
    const t = st.toks[st.i];
    if (t === undefined || (inSub && isOp(t, ')'))) break;
    const p = pipeline(st);
    const o = st.toks[st.i];
    if (isOp(o, '&&', '||')) {
      st.i++;
      skipNewlines(st);
      items.push({ p, op: (o as Op).v });
      const next = st.toks[st.i];
      if (next === undefined || isOp(next, ')', ';', '&', '&&', '||', '|', '|&')) fail(`nothing after "${(o as Op).v}"`);
    } else if (isOp(o, ';', '&', '\n')) {
      st.i++;
      items.push({ p, op: (o as Op).v });
      skipNewlines(st);
    } else {
      items.push({ p, op: '' });
      if (o === undefined || (inSub && isOp(o, ')'))) break;
      fail(`unexpected ${describe(o)}`);
    }
  }
  if (items.length === 0) fail('empty command');
  return items;
}

function pipeline(st: State): Pipeline {
  const first = st.toks[st.i] as Token;
  let t = first;
  if (t.t === 'w' && t.v === '!' && !(t.f & QUOTED)) t = st.toks[++st.i] as Token;
  if (t?.t === 'w' && t.v === 'time' && !(t.f & QUOTED)) {
    t = st.toks[++st.i] as Token;
    if (t?.t === 'w' && t.v === '-p') t = st.toks[++st.i] as Token;
  }
  if (t === undefined) fail('nothing after "time" or "!"');
  const cmds: Cmd[] = [command(st)];
  while (isOp(st.toks[st.i], '|', '|&')) {
    st.i++;
    skipNewlines(st);
    cmds.push(command(st));
  }
  return { s: first.s, e: (cmds[cmds.length - 1] as Cmd).e, core: t.s, cmds };
}

function command(st: State): Cmd {
  const t = st.toks[st.i];
  if (isOp(t, '(')) {
    if (isOp(st.toks[st.i + 1], '(')) fail('arithmetic command');
    st.i++;
    const body = list(st, true);
    const close = st.toks[st.i] as Op;
    if (!isOp(close, ')')) fail('unbalanced (');
    st.i++;
    const redirs: Redir[] = [];
    let e = close.e;
    for (let r = st.toks[st.i]; r?.t === 'r'; r = st.toks[++st.i]) {
      redirs.push(r);
      e = r.e;
    }
    if (st.toks[st.i]?.t === 'w') fail('word after a subshell');
    return { k: 'sub', s: (t as Token).s, e, close: close.e, body, redirs };
  }
  const assigns: Word[] = [];
  const words: Word[] = [];
  const redirs: Redir[] = [];
  let mixed = false;
  let s = -1;
  let e = -1;
  for (let x = st.toks[st.i]; x !== undefined && x.t !== 'op'; x = st.toks[++st.i]) {
    if (s < 0) s = x.s;
    e = x.e;
    if (x.t === 'r') redirs.push(x);
    else if (words.length === 0 && ASSIGN.test(st.src.slice(x.s, x.e))) {
      if (redirs.length) mixed = true;
      assigns.push(x);
    } else {
      if (redirs.length) mixed = true;
      words.push(x);
    }
  }
  if (s < 0) fail(`unexpected ${describe(t)}`);
  if (isOp(st.toks[st.i], '(')) fail('function definition or misplaced "("');
  const head = words[0];
  if (head && assigns.length === 0 && !(head.f & QUOTED) && RESERVED.has(head.v)) fail(`compound command (${head.v})`);
  return { k: 'simple', s, e, assigns, words, redirs, mixed };
}
