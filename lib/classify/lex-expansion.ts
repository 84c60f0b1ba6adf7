// The ends of `$…`, `${…}`, `$(…)`, `$((…))` and backticks, so the lexer knows where a word stops.
import { SparehandError } from '../errors.js';

/** Where a `$…` or backtick ends, and what it is: a parameter expansion (its text), a command substitution, or neither. */
export interface Expansion {
  end: number;
  /** The text of a parameter expansion, e.g. `$HOME`, `${X:-1}`, `$1`. */
  parameter?: string;
  /** A `$(…)`, `$((…))` or backticks. */
  substitution?: true;
}

const fail = (why: string): never => {
  throw new SparehandError('PARSE', why);
};
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isNameStart = (c: string | undefined): boolean => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isNameChar = (c: string | undefined): boolean => isNameStart(c) || isDigit(c);

// `$…` or a backtick at `i`: where it ends and what kind it is.
export function expansion(src: string, i: number): Expansion {
  if (src[i] === '`') return { end: skipBacktick(src, i + 1), substitution: true };
  const d = src[i + 1];
  if (d === '(') return { end: skipNested(src, i + 2, '(', ')'), substitution: true };
  if (d === '{') {
    const end = skipNested(src, i + 2, '{', '}');
    return { end, parameter: src.slice(i, end) };
  }
  if (isNameStart(d)) {
    let j = i + 2;
    while (isNameChar(src[j])) j++;
    return { end: j, parameter: src.slice(i, j) };
  }
  if (d === '?') return { end: i + 2 };
  if (isDigit(d) || d === '@' || d === '*' || d === '#' || d === '$' || d === '!' || d === '-') {
    return { end: i + 2, parameter: src.slice(i, i + 2) };
  }
  return { end: i + 1 };
}

function skipBacktick(src: string, i: number): number {
  while (i < src.length) {
    if (src[i] === '\\') i += 2;
    else if (src[i] === '`') return i + 1;
    else i++;
  }
  return fail('unbalanced backtick');
}

// After `$(` or `${`: to the matching `)` or `}`, following quotes and nested substitutions
// (a `case` or a heredoc inside `$(…)` is refused: their `)` and lines cannot be followed this simply).
function skipNested(src: string, i: number, open: '(' | '{', close: ')' | '}'): number {
  let depth = 1;
  const start = i;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === "'") {
      const j = src.indexOf("'", i + 1);
      if (j < 0) fail('unbalanced quote');
      i = j + 1;
    } else if (c === '"') i = skipDouble(src, i + 1);
    else if (c === '`') i = skipBacktick(src, i + 1);
    else if (c === '$' && src[i + 1] === '(') i = skipNested(src, i + 2, '(', ')');
    else if (c === open) {
      depth++;
      i++;
    } else if (c === close) {
      depth--;
      i++;
      if (depth === 0) {
        if (open === '(' && /\bcase\b|<</.test(src.slice(start, i))) fail('case or heredoc inside $(…)');
        return i;
      }
    } else i++;
  }
  return fail(`unbalanced $${open}`);
}

function skipDouble(src: string, i: number): number {
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if (c === '`') i = skipBacktick(src, i + 1);
    else if (c === '$' && src[i + 1] === '(') i = skipNested(src, i + 2, '(', ')');
    else i++;
  }
  return fail('unbalanced quote');
}
