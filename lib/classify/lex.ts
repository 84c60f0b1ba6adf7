// A small bash lexer that keeps byte offsets: the rewrite cuts the agent's command into exact substrings,
// which shell-quote's parse cannot give (it drops positions, splits `2>&1` into words and expands `$VAR`).
import { SparehandError } from '../errors.js';
import { expansion } from './lex-expansion.js';

/** Word flags: some quoting, a `$x`/`${x}` expansion, a `$(…)`/backtick/`$((…))`, a leading `~`, `$'…'` quoting. */
export const QUOTED = 1;
export { EXP, SUBST } from './lex-expansion.js';
export const TILDE = 8;
export const ANSI = 16;

export interface Word {
  t: 'w';
  s: number;
  e: number;
  /** The value after quote removal (exact only when no EXP/SUBST/ANSI flag; expansions kept as written). */
  v: string;
  f: number;
  /** The first parameter expansion written, e.g. `$HOME` (`$?` is not recorded: it means the same everywhere). */
  x?: string;
}
export interface Op {
  t: 'op';
  s: number;
  e: number;
  v: string;
}
export interface Redir {
  t: 'r';
  s: number;
  e: number;
  op: string;
  fd: string;
  target: Word;
}
export type Token = Word | Op | Redir;

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
      out.push({ t: 'op', s: i, e: i + 1, v: '\n' });
      i++;
    } else if (c === '#') {
      while (i < n && src[i] !== '\n') i++;
    } else if (c === '|') {
      const v = d === '|' ? '||' : d === '&' ? '|&' : '|';
      out.push({ t: 'op', s: i, e: i + v.length, v });
      i += v.length;
    } else if (c === '&') {
      if (d === '>') {
        const r = redirect(src, i, i, '');
        out.push(r);
        i = r.e;
      } else {
        const v = d === '&' ? '&&' : '&';
        out.push({ t: 'op', s: i, e: i + v.length, v });
        i += v.length;
      }
    } else if (c === ';') {
      if (d === ';' || d === '&') fail('case syntax');
      out.push({ t: 'op', s: i, e: i + 1, v: ';' });
      i++;
    } else if (c === '(' || c === ')') {
      out.push({ t: 'op', s: i, e: i + 1, v: c });
      i++;
    } else if (c === '<' || c === '>') {
      const r = redirect(src, i, i, '');
      out.push(r);
      i = r.e;
    } else {
      let j = i;
      while (isDigit(src[j])) j++;
      if (j > i && (src[j] === '<' || src[j] === '>')) {
        const r = redirect(src, i, j, src.slice(i, j));
        out.push(r);
        i = r.e;
      } else {
        if (c === '{' && src[i + 1] !== ' ' && /^\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/.test(src.slice(i, i + 40))) {
          fail('named file descriptor');
        }
        const w = word(src, i);
        out.push(w);
        i = w.e;
      }
    }
  }
  return out;
}

// One redirect: the operator at `at` (after an optional fd number starting at `s`) and its target word.
function redirect(src: string, s: number, at: number, fd: string): Redir {
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
  return { t: 'r', s, e: target.e, op, fd, target };
}

// One word from `s`: quotes, escapes and expansions followed to their end.
function word(src: string, s: number): Word {
  const n = src.length;
  let i = s;
  let v = '';
  let f = src[s] === '~' ? TILDE : 0;
  let x: string | undefined;
  // `$…` or a backquote at i, inside double quotes or not: kept as written, its flags noted.
  const takeExpansion = () => {
    const r = expansion(src, i);
    f |= r.f;
    x ??= r.x;
    v += src.slice(i, r.e);
    i = r.e;
  };
  while (i < n) {
    const c = src[i] as string;
    if (isMeta(c)) break;
    if (c === '\\') {
      f |= QUOTED;
      if (i + 1 >= n) {
        v += c;
        i++;
      } else {
        if (src[i + 1] !== '\n') v += src[i + 1];
        i += 2;
      }
    } else if (c === "'") {
      const j = src.indexOf("'", i + 1);
      if (j < 0) fail('unbalanced quote');
      v += src.slice(i + 1, j);
      f |= QUOTED;
      i = j + 1;
    } else if (c === '"' || (c === '$' && src[i + 1] === '"')) {
      f |= QUOTED;
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
          if (e === '$' || e === '`' || e === '"' || e === '\\') v += e;
          else if (e !== '\n') v += q + (e ?? '');
          i += 2;
        } else if (q === '$' || q === '`') {
          takeExpansion();
        } else {
          v += q;
          i++;
        }
      }
    } else if (c === '$' && src[i + 1] === "'") {
      f |= QUOTED | ANSI;
      let j = i + 2;
      while (j < n && src[j] !== "'") j += src[j] === '\\' ? 2 : 1;
      if (j >= n) fail('unbalanced quote');
      v += src.slice(i + 2, j);
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
      v += src.slice(i, j);
      i = j;
    }
  }
  if (i === s) fail('empty word');
  return x === undefined ? { t: 'w', s, e: i, v, f } : { t: 'w', s, e: i, v, f, x };
}
