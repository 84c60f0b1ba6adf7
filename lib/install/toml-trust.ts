// Trust entries for tools that run a hook only once its hash is trusted: a careful text edit of the tool's TOML
// (the user's comments and layout stay), checked by parsing the result with smol-toml.
import { parse } from 'smol-toml';
import { SparehandError } from '../errors.js';

type Table = Record<string, unknown>;

/** Parses TOML text, refusing (naming the file) what does not parse. */
export function parseToml(path: string, text: string): Table {
  try {
    return parse(text) as Table;
  } catch (e) {
    throw new SparehandError('PARSE', `cannot parse ${path} (${(e as Error).message.split('\n')[0]}); it was left untouched`, {
      hint: 'fix the file and run the command again',
      cause: e,
    });
  }
}

/** A TOML key: bare when it can be, else a basic (double-quoted) string. */
export const tomlKey = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

/** The value at a table path of parsed TOML. */
export function tomlAt(root: Table, path: readonly string[]): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Table)[k];
  }
  return v;
}

/** Splits a header like `[a."b.c"]` into its keys (bare, basic and literal strings). */
function headerKeys(line: string): string[] | undefined {
  const m = /^\s*\[(?!\[)(.*)\]\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  const keys: string[] = [];
  const re = /\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(\.|$)/y;
  const body = m[1]!;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const k = re.exec(body);
    if (!k) return undefined;
    keys.push(k[1] ?? (k[2] !== undefined ? (JSON.parse(`"${k[2]}"`) as string) : k[3]!));
    pos = re.lastIndex;
  }
  return keys;
}

const sameKeys = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((k, i) => k === b[i]);

/** Line range [start, end) of the table with these keys (its header line included). */
export function tableRange(lines: string[], table: readonly string[]): [number, number] | undefined {
  const start = lines.findIndex((l) => {
    const keys = headerKeys(l);
    return keys !== undefined && sameKeys(keys, table);
  });
  if (start < 0) return undefined;
  return [start, tableEnd(lines, start)];
}

/** Where the table whose header is line `start` ends: before the next header, trailing blank lines left out. */
export function tableEnd(lines: readonly string[], start: number): number {
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
  return end;
}

/** `text` with `field = "value"` in `[table]` (the table added at the end when missing). */
export function setTomlString(path: string, text: string | undefined, table: readonly string[], field: string, value: string): string {
  const src = text ?? '';
  const before = parseToml(path, src);
  if (tomlAt(before, [...table, field]) === value) return src;
  const lines = src.split('\n');
  const range = tableRange(lines, table);
  const line = `${tomlKey(field)} = ${JSON.stringify(value)}`;
  let out: string;
  if (range) {
    const [start, end] = range;
    const at = lines.slice(start + 1, end).findIndex((l) => new RegExp(`^\\s*${field.replace(/[-]/g, '\\-')}\\s*=`).test(l));
    if (at >= 0) lines[start + 1 + at] = line;
    else lines.splice(end, 0, line);
    out = lines.join('\n');
  } else {
    const header = `[${table.map(tomlKey).join('.')}]`;
    out = `${src.replace(/\n*$/, '')}${src.trim() === '' ? '' : '\n\n'}${header}\n${line}\n`;
  }
  if (tomlAt(parseToml(path, out), [...table, field]) !== value) {
    throw new SparehandError('INSTALL', `could not add the trust entry to ${path} (its layout is unusual); it was left untouched`);
  }
  return out;
}

/** `text` without `field` in `[table]`, and without the table when nothing else is in it. */
export function removeTomlField(path: string, text: string | undefined, table: readonly string[], field: string): string | undefined {
  if (text === undefined) return undefined;
  const before = parseToml(path, text);
  if (tomlAt(before, [...table, field]) === undefined) return text;
  const lines = text.split('\n');
  const range = tableRange(lines, table);
  if (!range) return text;
  const [start, end] = range;
  const body = lines.slice(start + 1, end).filter((l) => !new RegExp(`^\\s*${field}\\s*=`).test(l));
  const keep = body.some((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  if (keep) lines.splice(start + 1, end - start - 1, ...body);
  else {
    let from = start;
    while (from > 0 && lines[from - 1]!.trim() === '') from--;
    lines.splice(from, end - from);
  }
  const out = lines.join('\n');
  return out.trim() === '' ? undefined : out.endsWith('\n') || out === '' ? out : `${out}\n`;
}
