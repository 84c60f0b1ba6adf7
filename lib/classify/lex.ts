// A small bash lexer that keeps byte offsets: the rewrite cuts the agent's command into exact substrings,
// which shell-quote's parse cannot give (it drops positions, splits `2>&1` into words and expands `$VAR`).
import { SparehandError } from '../errors.js';
import { expansion } from './lex-expansion.js';

/** One word as the shell would split it, with what it holds besides plain text. */
export interface Word {
  kind: 'word';
  start: number;
  end: number;
  /** The value after quote removal (exact only when `isLiteral`: expansions are kept as written). */
  value: string;
  /** Some of it is quoted or escaped (so a quoted `if`, `!` or `time` is a plain word). */
  quoted: boolean;
  /** The first parameter expansion written, e.g. `$HOME` (`$?` is not recorded: it means the same everywhere). */
  expansion?: string;
  /** Holds a `$(…)`, `$((…))` or backticks. */
  substitution: boolean;
  /** Starts with `~`. */
  tilde: boolean;
  /** Holds `$'…'` quoting (its value keeps the backslash escapes as written). */
  ansiQuoted: boolean;
}
/** `&&`, `||`, `;`, `&`, `|`, `|&`, `(`, `)` or a newline. */
export interface Operator {
  kind: 'operator';
  start: number;
  end: number;
  value: string;
}
/** `[fd]op target`, e.g. `2>&1`, `> out.log`, `< input`. */
export interface Redirect {
  kind: 'redirect';
  start: number;
  end: number;
  /** `>`, `>>`, `<`, `>&`, `&>`, `<<<`… */
  operator: string;
  /** The file descriptor written before the operator, or ''. */
  fd: string;
  target: Word;
}
export type Token = Word | Operator | Redirect;

/** True when the word's value is exactly what bash would pass (no expansion, substitution or `$'…'`). */
export const isLiteral = (w: Pick<Word, 'expansion' | 'substitution' | 'ansiQuoted'>): boolean => w.expansion === undefined && !w.substitution && !w.ansiQuoted;

const fail = (why: string): never => {
  throw new SparehandError('PARSE', why);
};

// Characters that end a word outside quotes.
const isMeta = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '|' || c === '&' || c === ';' || c === '(' || c === ')' || c === '<' || c === '>';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Splits a command into words, operators and redirects; throws SparehandError('PARSE') on what it cannot follow. */
export function lex(src: string): Token[] {
  const out: Token[] = [];
  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src[i] as string;
    const d = src[i + 1];
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === '\\' && d === '\n') {
      i += 2;
    } else if (c === '\n') {
      out.push({ kind: 'operator', start: i, end: i + 1, value: '\n' });
      i++;
    } else if (c === '#') {
      while (i < n && src[i] !== '\n') i++;
    } else if (c === '|') {
      const v = d === '|' ? '||' : d === '&' ? '|&' : '|';
      out.push({ kind: 'operator', start: i, end: i + v.length, value: v });
      i += v.length;
    } else if (c === '&') {
      if (d === '>') {
        const r = redirect(src, i, i, '');
        out.push(r);
        i = r.end;
      } else {
        const v = d === '&' ? '&&' : '&';
        out.push({ kind: 'operator', start: i, end: i + v.length, value: v });
        i += v.length;
      }
    } else if (c === ';') {
      if (d === ';' || d === '&') fail('case syntax');
      out.push({ kind: 'operator', start: i, end: i + 1, value: ';' });
      i++;
    } else if (c === '(' || c === ')') {
      out.push({ kind: 'operator', start: i, end: i + 1, value: c });
      i++;
    } else if (c === '<' || c === '>') {
      const r = redirect(src, i, i, '');
      out.push(r);
      i = r.end;
    } else {
      let j = i;
      while (isDigit(src[j])) j++;
      if (j > i && (src[j] === '<' || src[j] === '>')) {
        const r = redirect(src, i, j, src.slice(i, j));
        out.push(r);
        i = r.end;
      } else {
        if (c === '{' && src[i + 1] !== ' ' && /^\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/.test(src.slice(i, i + 40))) {
          fail('named file descriptor');
        }
        const w = word(src, i);
        out.push(w);
        i = w.end;
      }
    }
  }
  return out;
}

// One redirect: the operator at `at` (after an optional fd number starting at `start`) and its target word.
function redirect(src: string, start: number, at: number, fd: string): Redirect {
  const c = src[at];
  const d = src[at + 1];
  let op: string;
  if (c === '&') op = src[at + 2] === '>' ? '&>>' : '&>';
  else if (c === '<') {
    if (d === '<') {
      if (src[at + 2] === '<') op = '<<<';
      else return fail('heredoc');
    } else if (d === '(') return fail('process substitution');
    else op = d === '&' ? '<&' : d === '>' ? '<>' : '<';
  } else {
    if (d === '(') return fail('process substitution');
    op = d === '>' ? '>>' : d === '&' ? '>&' : d === '|' ? '>|' : '>';
  }
  let i = at + op.length;
  while (src[i] === ' ' || src[i] === '\t' || (src[i] === '\\' && src[i + 1] === '\n')) i += src[i] === '\\' ? 2 : 1;
  if (i >= src.length || isMeta(src[i])) fail('redirect without a target');
  const target = word(src, i);
  return { kind: 'redirect', start, end: target.end, operator: op, fd, target };
}

// One word from `start`: quotes, escapes and expansions followed to their end.
function word(src: string, start: number): Word {
  const n = src.length;
  let i = start;
  let value = '';
  let quoted = false;
  let substitution = false;
  let ansiQuoted = false;
  let parameter: string | undefined;
  // `$…` or a backquote at i, inside double quotes or not: kept as written, what it is noted.
  const takeExpansion = () => {
    const x = expansion(src, i);
    if (x.substitution) substitution = true;
    parameter ??= x.parameter;
    value += src.slice(i, x.end);
    i = x.end;
  };
  while (i < n) {
    const c = src[i] as string;
    if (isMeta(c)) break;
    if (c === '\\') {
      quoted = true;
      if (i + 1 >= n) {
        value += c;
        i++;
      } else {
        if (src[i + 1] !== '\n') value += src[i + 1];
        i += 2;
      }
    } else if (c === "'") {
      const j = src.indexOf("'", i + 1);
      if (j < 0) fail('unbalanced quote');
      value += src.slice(i + 1, j);
      quoted = true;
      i = j + 1;
    } else if (c === '"' || (c === '$' && src[i + 1] === '"')) {
      quoted = true;
      i = c === '$' ? i + 2 : i + 1;
      for (;;) {
        if (i >= n) fail('unbalanced quote');
        const q = src[i] as string;
        if (q === '"') {
          i++;
          break;
        }
        if (q === '\\') {
          const e = src[i + 1];
          if (e === '$' || e === '`' || e === '"' || e === '\\') value += e;
          else if (e !== '\n') value += q + (e ?? '');
          i += 2;
        } else if (q === '$' || q === '`') {
          takeExpansion();
        } else {
          value += q;
          i++;
        }
      }
    } else if (c === '$' && src[i + 1] === "'") {
      quoted = true;
      ansiQuoted = true;
      let j = i + 2;
      while (j < n && src[j] !== "'") j += src[j] === '\\' ? 2 : 1;
      if (j >= n) fail('unbalanced quote');
      value += src.slice(i + 2, j);
      i = j + 1;
    } else if (c === '$' || c === '`') {
      takeExpansion();
    } else {
      let j = i + 1;
      while (j < n) {
        const k = src[j];
        if (isMeta(k) || k === '\\' || k === "'" || k === '"' || k === '$' || k === '`') break;
        j++;
      }
      value += src.slice(i, j);
      i = j;
    }
  }
  if (i === start) fail('empty word');
  return { kind: 'word', start, end: i, value, quoted, expansion: parameter, substitution, tilde: src[start] === '~', ansiQuoted };
}
