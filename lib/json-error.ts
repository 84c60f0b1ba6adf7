// Where a JSON text stops being JSON, and what is wrong there, for the config file's line:column. JSON.parse says
// where only for some mistakes ("… in JSON at position 7"), and not at all for the most common one, a trailing comma
// in an array (V8: "Unexpected token ']', …"); its wording also changes between Node versions. This follows RFC 8259
// as JSON.parse reads it, and is asked only once JSON.parse has refused the text.

export interface JsonSyntaxError {
  /** Offset in the text (UTF-16 code units) of what is wrong: the trailing comma, the unexpected character, the end. */
  offset: number;
  problem: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The character at `at` as a line shows it: `'x'`, `U+0007`, or the end of the file. */
function shown(text: string, at: number): string {
  if (at >= text.length) return 'the end of the file';
  const code = text.codePointAt(at) as number;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xfeff || (code >= 0x2028 && code <= 0x202e))
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(code)}'`;
}

/** The first syntax error in `text`, or undefined when it is JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  };
  const fail = (problem: string, at = i): never => {
    throw new Stop(at, problem);
  };
  const found = (expected: string) => fail(`expected ${expected}, found ${shown(text, i)}`);
  const string = () => {
    i++;
    for (;;) {
      if (i >= text.length) fail("a string that is never closed (a missing '\"')");
      const c = text[i] as string;
      if (c === '"') return void i++;
      if (c.charCodeAt(0) < 0x20) fail(`${shown(text, i)} inside a string (write it as an escape: \\n, \\t, \\u00XX)`);
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('a \\u escape without four hex digits');
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else fail(`a bad escape in a string: \\${e ?? ''} (a backslash is written \\\\)`);
      } else i++;
    }
  };
  const number = () => {
    const start = i;
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('a malformed number');
    i += (m as RegExpExecArray)[0].length;
    // `01`, `1.`, `1e`: the number stops where JSON's does, and what follows is not JSON.
    if (/^[0-9.eE+-]/.test(text[i] ?? '')) fail('a malformed number', start);
  };
  const value = (what = 'a value') => {
    skip();
    const c = text[i];
    if (c === '{') return list('}', member, "a property's value");
    if (c === '[') return list(']', value, 'a value in a list');
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    found(what);
  };
  /** `{…}` or `[…]`: `item`s until `close`, a comma between two, none after the last (the commonest typo). */
  const list = (close: string, item: () => void, after: string) => {
    i++;
    skip();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      skip();
      if (text[i] === close) return void i++;
      if (text[i] !== ',') found(`',' or '${close}' after ${after}`);
      const comma = i++;
      skip();
      if (text[i] === close) fail(`a trailing comma before '${close}' (JSON allows none: remove the comma)`, comma);
    }
  };
  const member = () => {
    skip();
    if (text[i] !== '"') found('a property name in double quotes');
    string();
    skip();
    if (text[i] !== ':') found("':' after the property name");
    i++;
    value();
  };
  try {
    value();
    skip();
    if (i < text.length) found('the end of the file after the JSON value');
    return undefined;
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, problem: e.problem };
    // Nested deeper than this stack: no place to name (the caller says what JSON.parse said).
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

/** `LINE:COLUMN` (both from 1) of `offset` in `text`. */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `${before.split('\n').length}:${offset - before.lastIndexOf('\n')}`;
}
