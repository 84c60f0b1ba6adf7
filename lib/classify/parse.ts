// Tokens → lists of pipelines of commands, with the offsets the rewrite needs. Only the plain shapes agents
// write (chains, pipes, subshells, redirects); compound commands (`if`, `for`, `{ …; }`) are refused.
import { SparehandError } from '../errors.js';
import { lex, type Operator, type Redirect, type Token, type Word } from './lex.js';

/** `NAME=value … program args … redirects`. */
export interface SimpleCommand {
  kind: 'simple';
  start: number;
  end: number;
  /** `NAME=value` words before the program's name. */
  assignments: Word[];
  words: Word[];
  redirects: Redirect[];
  /** A redirect stands before the last word (so the redirects cannot all be cut off the end). */
  redirectBeforeWord: boolean;
  /** How many folders below the command line's own folder the plain `cd`s before it went (`cd a/b && …`: 2). */
  below?: number;
}
/** `( list ) redirects`. */
export interface Subshell {
  kind: 'subshell';
  start: number;
  end: number;
  /** The offset just after the closing `)`. */
  closeEnd: number;
  body: ListItem[];
  redirects: Redirect[];
}
export type Command = SimpleCommand | Subshell;
/** `[!] [time [-p]] command | command …`. */
export interface Pipeline {
  start: number;
  end: number;
  /** The offset of the first command, after `!` and `time [-p]`. */
  commandStart: number;
  commands: Command[];
  /** The operator before each command after the first: `|`, or `|&` (stderr too), and where it starts. */
  pipes: Array<{ value: string; start: number }>;
}
/** A pipeline and the operator after it (`&&`, `||`, `;`, `&`, newline), or '' at the end. */
export interface ListItem {
  pipeline: Pipeline;
  operator: string;
}

const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'select',
  'function',
  '{',
  '}',
  '[[',
  ']]',
  'coproc',
]);
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

const fail = (why: string): never => {
  throw new SparehandError('PARSE', why);
};

/** Parses a whole command string (`depth`: how far below the project's root it starts); throws SparehandError('PARSE') naming what it could not follow. */
export function parse(src: string, depth = 0): ListItem[] {
  const st = { src, tokens: lex(src), i: 0 };
  const items = list(st, false);
  if (st.i < st.tokens.length) fail(`unexpected ${describe(st.tokens[st.i])}`);
  depths(items, Number.isInteger(depth) && depth > 0 ? depth : 0);
  return items;
}

/** Sets each simple command's `below`: a `../x` after `cd sub &&` is still in the folder the line started in. */
function depths(items: readonly ListItem[], start: number): void {
  let depth = start;
  for (const item of items) {
    for (const c of item.pipeline.commands) {
      if (c.kind === 'subshell') depths(c.body, depth);
      else c.below = depth;
    }
    const [only, ...more] = item.pipeline.commands;
    const target = only?.kind === 'simple' && more.length === 0 && only.words.length === 2 && only.words[0]?.value === 'cd' ? only.words[1] : undefined;
    // (After `cd /abs/path`, a `..` names a place this line can name itself: the absolute-path rules judge it.)
    if (target?.value.startsWith('/')) depth = Number.POSITIVE_INFINITY;
    else if (target && target.expansion === undefined && !target.substitution && !target.tilde) {
      for (const part of target.value.split('/')) {
        if (part === '..') depth = Math.max(0, depth - 1);
        else if (part !== '' && part !== '.') depth++;
      }
    }
  }
}

interface State {
  src: string;
  tokens: Token[];
  /** The next token to read. */
  i: number;
}

const describe = (t: Token | undefined): string => (t === undefined ? 'end' : t.kind === 'operator' ? `"${t.value === '\n' ? '\\n' : t.value}"` : 'word');
const isOperator = (t: Token | undefined, ...values: string[]): boolean => t?.kind === 'operator' && values.includes(t.value);
const isPlainWord = (t: Token | undefined, value: string): boolean => t?.kind === 'word' && t.value === value && !t.quoted;

function skipNewlines(st: State): void {
  while (isOperator(st.tokens[st.i], '\n')) st.i++;
}

function list(st: State, inSubshell: boolean): ListItem[] {
  const items: ListItem[] = [];
  skipNewlines(st);
  for (;;) {
    const t = st.tokens[st.i];
    if (t === undefined || (inSubshell && isOperator(t, ')'))) break;
    const p = pipeline(st);
    const o = st.tokens[st.i];
    if (isOperator(o, '&&', '||')) {
      st.i++;
      skipNewlines(st);
      const operator = (o as Operator).value;
      items.push({ pipeline: p, operator });
      const next = st.tokens[st.i];
      if (next === undefined || isOperator(next, ')', ';', '&', '&&', '||', '|', '|&')) fail(`nothing after "${operator}"`);
    } else if (isOperator(o, ';', '&', '\n')) {
      st.i++;
      items.push({ pipeline: p, operator: (o as Operator).value });
      skipNewlines(st);
    } else {
      items.push({ pipeline: p, operator: '' });
      if (o === undefined || (inSubshell && isOperator(o, ')'))) break;
      fail(`unexpected ${describe(o)}`);
    }
  }
  if (items.length === 0) fail('empty command');
  return items;
}

function pipeline(st: State): Pipeline {
  const first = st.tokens[st.i] as Token;
  if (isPlainWord(st.tokens[st.i], '!')) st.i++;
  if (isPlainWord(st.tokens[st.i], 'time')) {
    st.i++;
    const option = st.tokens[st.i];
    if (option?.kind === 'word' && option.value === '-p') st.i++;
  }
  const t = st.tokens[st.i];
  if (t === undefined) return fail('nothing after "time" or "!"');
  const commands: Command[] = [command(st)];
  const pipes: Pipeline['pipes'] = [];
  while (isOperator(st.tokens[st.i], '|', '|&')) {
    pipes.push({ value: (st.tokens[st.i] as Operator).value, start: (st.tokens[st.i] as Operator).start });
    st.i++;
    skipNewlines(st);
    commands.push(command(st));
  }
  return { start: first.start, end: (commands[commands.length - 1] as Command).end, commandStart: t.start, commands, pipes };
}

function command(st: State): Command {
  const t = st.tokens[st.i];
  if (isOperator(t, '(')) {
    if (isOperator(st.tokens[st.i + 1], '(')) fail('arithmetic command');
    st.i++;
    const body = list(st, true);
    const close = st.tokens[st.i] as Operator;
    if (!isOperator(close, ')')) fail('unbalanced (');
    st.i++;
    const redirects: Redirect[] = [];
    let end = close.end;
    for (let r = st.tokens[st.i]; r?.kind === 'redirect'; r = st.tokens[++st.i]) {
      redirects.push(r);
      end = r.end;
    }
    if (st.tokens[st.i]?.kind === 'word') fail('word after a subshell');
    return { kind: 'subshell', start: (t as Operator).start, end, closeEnd: close.end, body, redirects };
  }
  const assignments: Word[] = [];
  const words: Word[] = [];
  const redirects: Redirect[] = [];
  let redirectBeforeWord = false;
  let start = -1;
  let end = -1;
  for (let x = st.tokens[st.i]; x !== undefined && x.kind !== 'operator'; x = st.tokens[++st.i]) {
    if (start < 0) start = x.start;
    end = x.end;
    if (x.kind === 'redirect') redirects.push(x);
    else {
      if (redirects.length) redirectBeforeWord = true;
      if (words.length === 0 && ASSIGN.test(st.src.slice(x.start, x.end))) assignments.push(x);
      else words.push(x);
    }
  }
  if (start < 0) fail(`unexpected ${describe(t)}`);
  if (isOperator(st.tokens[st.i], '(')) fail('function definition or misplaced "("');
  const head = words[0];
  if (head && assignments.length === 0 && !head.quoted && RESERVED.has(head.value)) fail(`compound command (${head.value})`);
  return { kind: 'simple', start, end, assignments, words, redirects, redirectBeforeWord };
}
