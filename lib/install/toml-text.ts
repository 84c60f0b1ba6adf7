// The one editor of TOML text (smol-toml parses but cannot edit): a tool's settings, its trust entries and sparehand's
// hook tables are all changed here, line by line, on one reading of headers, tables and fields, so that the user's
// other keys, comments and layout stay; every result is parsed again before it is used. One file (past the usual
// length) because the three kinds of edit stand on the same few line rules, and two copies of them drifted apart.
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'smol-toml';
import type { HookCommand, TomlHookTarget } from '../agents/types.js';
import { SparehandError } from '../errors.js';
import { type SettingsText, checkedEdit, isEmptyValue, missingIn, valueAt } from './settings-text.js';

type Table = Record<string, unknown>;

// ---- Reading the text: what a header, a table and a field are.

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

/** The keys of a table's path as a header writes them: `hooks.PreToolUse`. */
export const tomlPath = (path: readonly string[]): string => path.map(tomlKey).join('.');

/** A value as TOML text: strings in basic quotes (JSON's escapes are TOML's), numbers, booleans, lists of them. */
const tomlValue = (v: unknown): string => (Array.isArray(v) ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(v));

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
function tableRange(lines: readonly string[], table: readonly string[]): [number, number] | undefined {
  const start = lines.findIndex((l) => {
    const keys = headerKeys(l);
    return keys !== undefined && sameKeys(keys, table);
  });
  if (start < 0) return undefined;
  return [start, tableEnd(lines, start)];
}

/** Where the table whose header is line `start` ends: before the next header, trailing blank lines left out. */
function tableEnd(lines: readonly string[], start: number): number {
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
  return end;
}

/** The lines [start, end) of `field = …` in the table whose header is line `header` (-1: before the first table). */
function fieldRange(lines: readonly string[], header: number, field: string): [number, number] | undefined {
  const first = lines.findIndex((l) => /^\s*\[/.test(l));
  const end = header >= 0 ? tableEnd(lines, header) : first < 0 ? lines.length : first;
  const re = new RegExp(`^\\s*(${field}|"${field}")\\s*=`);
  for (let i = header + 1; i < end; i++) {
    if (!re.test(lines[i]!)) continue;
    // A list may span lines: until its brackets (outside strings) close.
    let depth = 0;
    for (let j = i; j < lines.length; j++) {
      const bare = lines[j]!.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '""').replace(/#.*$/, '');
      for (const ch of j === i ? bare.slice(bare.indexOf('=')) : bare) depth += ch === '[' ? 1 : ch === ']' ? -1 : 0;
      if (depth <= 0) return [i, j + 1];
    }
    return [i, lines.length];
  }
  return undefined;
}

/** Code of a line with strings blanked and the comment cut (for finding brackets and commas). */
const codeOf = (line: string) => line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, (m) => '_'.repeat(m.length)).replace(/#.*$/, '');

// ---- The editor of `[table]`s and their `field = value` lines (a tool's settings, trust entries).

/** TOML, edited line by line: a `[table]` and its `field = value` lines. */
export function tomlSettings(path: string, original: string | undefined): SettingsText {
  let text = original ?? '';
  const doc = () => parseToml(path, text);
  doc();
  /** The header line of `table` (-1 for the top level), made at the end of the file when missing. */
  const header = (table: readonly string[], make: boolean): number | undefined => {
    if (table.length === 0) return -1;
    const lines = text.split('\n');
    const r = tableRange(lines, table);
    if (r) return r[0];
    if (valueAt(doc(), table) !== undefined) {
      throw new SparehandError('INSTALL', `${path}: ${table.join('.')} is not written as a [${table.join('.')}] table; it was left untouched`, {
        hint: 'make the change by hand (`sparehand agent status` says which)',
      });
    }
    if (!make) return undefined;
    text = `${text.replace(/\n*$/, '')}${text.trim() === '' ? '' : '\n\n'}[${tomlPath(table)}]\n`;
    return text.split('\n').length - 2;
  };
  /**
   * Adds to a list where it is written (the user's comments and layout stay): before its closing bracket, or as lines
   * of their own in a list written one item a line with a comma after each.
   */
  const insertInList = (key: readonly string[], values: readonly string[]): boolean => {
    const h = header(key.slice(0, -1), false);
    if (h === undefined) return false;
    const lines = text.split('\n');
    const r = fieldRange(lines, h, key.at(-1)!);
    if (!r) return false;
    const last = lines[r[1] - 1]!;
    const at = codeOf(last).lastIndexOf(']');
    if (at < 0) return false;
    const before = [...lines.slice(r[0], r[1] - 1).map(codeOf), codeOf(last).slice(0, at)].join('\n').trimEnd();
    const items = values.map((v) => JSON.stringify(v));
    const prev = lines[r[1] - 2];
    if (r[1] - r[0] > 1 && codeOf(last).slice(0, at).trim() === '' && before.endsWith(',') && prev !== undefined) {
      const indent = /^\s*/.exec(prev)![0];
      lines.splice(r[1] - 1, 0, ...items.map((i) => `${indent}${i},`));
    } else {
      const lead = before.endsWith(',') || before.endsWith('[') ? '' : ', ';
      lines[r[1] - 1] = `${last.slice(0, at)}${lead}${items.join(', ')}${last.slice(at)}`;
    }
    text = lines.join('\n');
    return true;
  };
  const put = (key: readonly string[], v: unknown) => {
    const h = header(key.slice(0, -1), true)!;
    const lines = text.split('\n');
    const line = `${tomlKey(key.at(-1)!)} = ${tomlValue(v)}`;
    const r = fieldRange(lines, h, key.at(-1)!);
    if (r) lines.splice(r[0], r[1] - r[0], line);
    else lines.splice(h < 0 ? 0 : tableEnd(lines, h), 0, line);
    text = lines.join('\n');
    if (!text.endsWith('\n')) text += '\n';
  };
  const self: SettingsText = {
    get: (key) => valueAt(doc(), key),
    missingFrom: (key) => missingIn(doc(), key),
    add(key, values) {
      const now = self.get(key);
      if (now !== undefined && !Array.isArray(now)) throw new SparehandError('INSTALL', `${path}: ${key.join('.')} is not a list; it was left untouched`);
      if (now === undefined || !insertInList(key, values)) put(key, [...((now as unknown[] | undefined) ?? []), ...values]);
      checkedEdit(path, doc, key, (v) => Array.isArray(v) && values.every((x) => v.includes(x)));
    },
    take(key, values) {
      for (const v of values) {
        const now = self.get(key);
        if (!Array.isArray(now) || !now.includes(v)) continue;
        // As add wrote it (`, "v"` before the bracket), so that taking it gives back the user's bytes.
        const h = header(key.slice(0, -1), false)!;
        const lines = text.split('\n');
        const r = fieldRange(lines, h, key.at(-1)!)!;
        const q = JSON.stringify(v);
        const own = lines.slice(r[0] + 1, r[1] - 1).findIndex((l) => l.trim() === `${q},`);
        if (own >= 0) lines.splice(r[0] + 1 + own, 1);
        else {
          const field = lines.slice(r[0], r[1]).join('\n');
          const cut = [`, ${q}`, `${q}, `, q].find((x) => field.includes(x));
          lines.splice(r[0], r[1] - r[0], ...field.replace(cut!, '').split('\n'));
        }
        const before = text;
        text = lines.join('\n');
        const after = self.get(key);
        if (!Array.isArray(after) || after.length !== now.length - 1) {
          text = before;
          put(
            key,
            now.filter((x) => x !== v),
          );
        }
      }
    },
    set(key, v) {
      put(key, v);
      checkedEdit(path, doc, key, (x) => isDeepStrictEqual(x, v));
    },
    remove(key) {
      const h = header(key.slice(0, -1), false);
      if (h === undefined) return;
      const lines = text.split('\n');
      const r = fieldRange(lines, h, key.at(-1)!);
      if (r) lines.splice(r[0], r[1] - r[0]);
      text = lines.join('\n');
    },
    prune(key, from) {
      if (self.get(key) !== undefined && !isEmptyValue(self.get(key))) return;
      self.remove(key);
      // The table goes when install made it (from its depth) and nothing of the user's is in it.
      const table = key.slice(0, -1);
      if (table.length === 0 || from > table.length || !isEmptyValue(self.get(table))) return;
      const lines = text.split('\n');
      const r = tableRange(lines, table);
      if (!r || lines.slice(r[0] + 1, r[1]).some((l) => l.trim() !== '')) return;
      let start = r[0];
      while (start > 0 && lines[start - 1]!.trim() === '') start--;
      lines.splice(start, r[1] - start);
      text = lines.join('\n');
      if (text.trim() !== '' && !text.endsWith('\n')) text += '\n';
    },
    empty: () => text.trim() === '',
    text: () => text,
  };
  return self;
}

// ---- One string field of one table: the trust entries of tools that run a hook only once its hash is trusted.

/** `text` with `field = "value"` in `[table]` (the table added at the end when missing). */
export function setTomlString(path: string, text: string | undefined, table: readonly string[], field: string, value: string): string {
  const src = text ?? '';
  const doc = tomlSettings(path, src);
  if (doc.get([...table, field]) === value) return src;
  doc.set([...table, field], value);
  return doc.text();
}

/** `text` without `field` in `[table]`, and without the table when nothing else is in it; undefined when nothing is left. */
export function removeTomlField(path: string, text: string | undefined, table: readonly string[], field: string): string | undefined {
  if (text === undefined) return undefined;
  const doc = tomlSettings(path, text);
  // Not there, or not in a `[table]` of its own (the tool's layout, not ours): left as it is.
  if (doc.get([...table, field]) === undefined || !tableRange(text.split('\n'), table)) return text;
  doc.remove([...table, field]);
  doc.prune([...table, field], table.length);
  const out = doc.text();
  return out.trim() === '' ? undefined : out.endsWith('\n') ? out : `${out}\n`;
}

// ---- sparehand's table in an array of tables (`[[hooks]]`, `[[hooks.PreToolUse]]`): the hook of a TOML tool.

/** One `[[path]]` table of the file: its lines [start, end), trailing blank lines left out, and what it holds. */
interface Block {
  start: number;
  end: number;
  value: unknown;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/** The `[[path]]` tables of `lines`, each parsed on its own (a table that does not parse alone is nobody's entry). */
function blocks(lines: readonly string[], path: readonly string[]): Block[] {
  // Each key bare or in basic quotes, with blanks around the dots: `[[hooks.PreToolUse]]`, `[[ "hooks" . PreToolUse ]]`.
  const keys = path.map((k) => `(?:${escapeRe(k)}|"${escapeRe(k)}")`).join('\\s*\\.\\s*');
  const header = new RegExp(`^\\s*\\[\\[\\s*${keys}\\s*\\]\\]\\s*(#.*)?$`);
  const out: Block[] = [];
  for (let start = 0; start < lines.length; start++) {
    if (!header.test(lines[start]!)) continue;
    const end = tableEnd(lines, start);
    let value: unknown;
    try {
      value = (valueAt(parse(lines.slice(start, end).join('\n')) as Table, path) as unknown[] | undefined)?.[0];
    } catch {
      value = undefined;
    }
    out.push({ start, end, value });
  }
  return out;
}

/** The table as TOML text. */
export function renderTable(path: readonly string[], entry: Record<string, string | number | boolean>): string {
  return [`[[${tomlPath(path)}]]`, ...Object.entries(entry).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`)].join('\n');
}

/** The parsed file, refused (named) when it does not parse or its key is not an array of tables. */
function checkedArray(target: TomlHookTarget, path: string, text: string): Table {
  const root = parseToml(path, text);
  for (let depth = 1; depth < target.arrayPath.length; depth++) {
    const v = valueAt(root, target.arrayPath.slice(0, depth));
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v))) {
      throw new SparehandError('PARSE', `${path}: ${target.arrayPath.slice(0, depth).join('.')} is not a table; it was left untouched`, {
        hint: 'fix the file and run the command again',
      });
    }
  }
  const list = valueAt(root, target.arrayPath);
  if (list !== undefined && (!Array.isArray(list) || list.some((e) => typeof e !== 'object' || e === null || Array.isArray(e)))) {
    throw new SparehandError('PARSE', `${path}: ${target.arrayPath.join('.')} is not an array of tables; it was left untouched`, {
      hint: 'fix the file and run the command again',
    });
  }
  return root;
}

/** sparehand's tables in the file, in order. */
const ours = (target: TomlHookTarget, lines: readonly string[]) => blocks(lines, target.arrayPath).filter((b) => target.isOurs(b.value));

/** `lines` without the table `b`, and without the blank line that separated it (install put one before it). */
function without(lines: string[], b: Block): string[] {
  let [from, to] = [b.start, b.end];
  const blank = (i: number) => i >= lines.length || lines[i]!.trim() === '';
  if (from > 0 && blank(from - 1) && blank(to)) from--;
  else if (from === 0 && to < lines.length - 1 && blank(to)) to++;
  return [...lines.slice(0, from), ...lines.slice(to)];
}

/** `text` with sparehand's table in place: the first of ours replaced, any others removed, else appended. */
export function installToml(target: TomlHookTarget, path: string, text: string | undefined, hook: HookCommand): string {
  const src = text ?? '';
  checkedArray(target, path, src);
  const table = renderTable(target.arrayPath, target.entry(hook));
  let lines = src.split('\n');
  const mine = ours(target, lines);
  for (const b of mine.slice(1).reverse()) lines = without(lines, b);
  let out: string;
  const first = mine[0];
  if (first) {
    if (lines.slice(first.start, first.end).join('\n') === table) return lines.join('\n');
    out = [...lines.slice(0, first.start), table, ...lines.slice(first.end)].join('\n');
  } else {
    out = src.trim() === '' ? `${table}\n` : `${src}${src.endsWith('\n') ? '' : '\n'}\n${table}\n`;
  }
  let list: unknown[] | undefined;
  try {
    list = valueAt(checkedArray(target, path, out), target.arrayPath) as unknown[] | undefined;
  } catch (e) {
    // The user's own `hooks = [...]` (inline) cannot be followed by a `[[hooks]]` table.
    const key = target.arrayPath.join('.');
    const header = tomlPath(target.arrayPath);
    throw new SparehandError('PARSE', `${path}: ${key} is not written as [[${header}]] tables; it was left untouched`, {
      hint: `write ${key} as [[${header}]] tables (or move the file away) and run the command again`,
      cause: e,
    });
  }
  if (list?.filter((e) => target.isOurs(e)).length !== 1) {
    throw new SparehandError('INSTALL', `could not add the hook to ${path} (its layout is unusual); it was left untouched`);
  }
  return out;
}

/** `text` without sparehand's tables (unchanged when there are none). */
export function uninstallToml(target: TomlHookTarget, path: string, text: string): string {
  checkedArray(target, path, text);
  let lines = text.split('\n');
  const mine = ours(target, lines);
  if (mine.length === 0) return text;
  for (const b of [...mine].reverse()) lines = without(lines, b);
  return lines.join('\n');
}

/** The commands of sparehand's tables in the file (for `agent test` and `agent status`). */
export function installedTomlCommands(target: TomlHookTarget, path: string, text: string): string[] {
  checkedArray(target, path, text);
  return ours(target, text.split('\n')).flatMap((b) => {
    const c = target.commandOf(b.value);
    return c === undefined ? [] : [c];
  });
}
