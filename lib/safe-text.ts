// Names from elsewhere (the worker's report, a project's files) printed in sparehand's own lines: control
// characters and the Unicode controls that reorder text are escaped, and such a name is quoted, as git does with
// core.quotePath, so that no name can forge or hide a `sparehand:` line on the agent's screen.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"\\]/u;
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"\\]/gu;
const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

/** One unsafe character, escaped. */
function escaped(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0) as number;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

export function printable(name: string): string {
  if (!UNSAFE.test(name)) return name;
  const body = name.replace(UNSAFE_ALL, escaped);
  return `"${body}"`;
}

const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * A sentence from elsewhere (a worker's refusal) inside one of sparehand's lines: the same characters escaped as in
 * `printable`, but not quoted (quotes and backslashes are ordinary in a sentence), and at most `max` characters.
 */
export function printableSentence(text: string, max = 2000): string {
  const body = text.replace(CONTROLS, escaped);
  return body.length > max ? `${body.slice(0, max)}…` : body;
}
