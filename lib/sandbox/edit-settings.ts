// Careful text edits of a tool's settings file for --sandbox-access: add to (or take from) a list, set (or remove) a
// key, prune what became empty. The user's other keys, comments and layout stay; each edit is checked by parsing.
import { parse } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';
import { SparehandError } from '../errors.js';
import { parseSettings, put as putJson, remove as removeJson } from '../install/json-target.js';
import { parseToml, tableEnd, tableRange, tomlAt, tomlKey } from '../install/toml-trust.js';

export interface SettingsText {
  get(key: readonly string[]): unknown;
  /** The depth (1 = the first key) from which `key` is missing; undefined when it is there. */
  missingFrom(key: readonly string[]): number | undefined;
  add(key: readonly string[], values: readonly string[]): void;
  take(key: readonly string[], values: readonly string[]): void;
  set(key: readonly string[], value: unknown): void;
  remove(key: readonly string[]): void;
  /** Removes `key` and its containers, down to depth `from`, while they are empty. */
  prune(key: readonly string[], from: number): void;
  /** Nothing but an empty document is left. */
  empty(): boolean;
  text(): string;
}

const isEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0);

function missingIn(doc: Record<string, unknown>, key: readonly string[]): number | undefined {
  for (let depth = 1; depth <= key.length; depth++) if (tomlAt(doc, key.slice(0, depth)) === undefined) return depth;
  return undefined;
}

function checked(path: string, doc: () => unknown, key: readonly string[], want: (v: unknown) => boolean): void {
  if (!want(tomlAt(doc() as Record<string, unknown>, key))) {
    throw new SparehandError('INSTALL', `could not change ${key.join('.')} in ${path} (its layout is unusual); it was left untouched`, {
      hint: 'make the change by hand (`sparehand agent status` says which), or move the file away and run the command again',
    });
  }
}

/**
 * JSON (with comments where the tool allows them), edited as the hook's entries are (install/json-target.ts): only
 * the inserted text is formatted, and taking out what was added gives back the bytes that were there.
 */
export function jsonSettings(path: string, original: string | undefined): SettingsText {
  let text = original ?? '{}\n';
  const doc = () => parseSettings(path, text, true);
  doc();
  const edit = (p: (string | number)[], v: unknown, insert = false) => {
    text = v === undefined ? removeJson(text, p) : putJson(text, p, v, insert);
  };
  const self: SettingsText = {
    get: (key) => tomlAt(doc(), key),
    missingFrom: (key) => missingIn(doc(), key),
    add(key, values) {
      const now = self.get(key);
      if (now === undefined) edit([...key], [...values]);
      else if (!Array.isArray(now)) throw new SparehandError('INSTALL', `${path}: ${key.join('.')} is not a list; it was left untouched`);
      else for (const v of values) edit([...key, -1], v, true);
      checked(path, doc, key, (v) => Array.isArray(v) && values.every((x) => v.includes(x)));
    },
    take(key, values) {
      for (const v of values) {
        const list = self.get(key);
        const i = Array.isArray(list) ? list.indexOf(v) : -1;
        if (i >= 0) edit([...key, i], undefined);
      }
    },
    set(key, value) {
      edit([...key], value);
      checked(path, doc, key, (v) => isDeepStrictEqual(v, value));
    },
    remove: (key) => edit([...key], undefined),
    prune(key, from) {
      for (let depth = key.length; depth >= from; depth--) {
        const v = self.get(key.slice(0, depth));
        if (v !== undefined && !isEmpty(v)) break;
        if (v !== undefined) edit([...key.slice(0, depth)], undefined);
      }
    },
    empty: () => isEmpty(parse(text)) || text.trim() === '',
    text: () => text,
  };
  return self;
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

/** TOML, edited line by line (smol-toml has no editor): a `[table]` and its `field = value` lines. */
export function tomlSettings(path: string, original: string | undefined): SettingsText {
  let text = original ?? '';
  const doc = () => parseToml(path, text);
  doc();
  const value = (v: unknown) => (Array.isArray(v) ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(v));
  /** The header line of `table` (-1 for the top level), made at the end of the file when missing. */
  const header = (table: readonly string[], make: boolean): number | undefined => {
    if (table.length === 0) return -1;
    const lines = text.split('\n');
    const r = tableRange(lines, table);
    if (r) return r[0];
    if (tomlAt(doc(), table) !== undefined) {
      throw new SparehandError('INSTALL', `${path}: ${table.join('.')} is not written as a [${table.join('.')}] table; it was left untouched`, {
        hint: 'make the change by hand (`sparehand agent status` says which)',
      });
    }
    if (!make) return undefined;
    text = `${text.replace(/\n*$/, '')}${text.trim() === '' ? '' : '\n\n'}[${table.map(tomlKey).join('.')}]\n`;
    return text.split('\n').length - 2;
  };
  /** Code of a line with strings blanked and the comment cut (for finding brackets and commas). */
  const codeOf = (line: string) => line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, (m) => '_'.repeat(m.length)).replace(/#.*$/, '');
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
    const line = `${tomlKey(key.at(-1)!)} = ${value(v)}`;
    const r = fieldRange(lines, h, key.at(-1)!);
    if (r) lines.splice(r[0], r[1] - r[0], line);
    else lines.splice(h < 0 ? 0 : tableEnd(lines, h), 0, line);
    text = lines.join('\n');
    if (!text.endsWith('\n')) text += '\n';
  };
  const self: SettingsText = {
    get: (key) => tomlAt(doc(), key),
    missingFrom: (key) => missingIn(doc(), key),
    add(key, values) {
      const now = self.get(key);
      if (now !== undefined && !Array.isArray(now)) throw new SparehandError('INSTALL', `${path}: ${key.join('.')} is not a list; it was left untouched`);
      if (now === undefined || !insertInList(key, values)) put(key, [...((now as unknown[] | undefined) ?? []), ...values]);
      checked(path, doc, key, (v) => Array.isArray(v) && values.every((x) => v.includes(x)));
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
      checked(path, doc, key, (x) => isDeepStrictEqual(x, v));
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
      if (self.get(key) !== undefined && !isEmpty(self.get(key))) return;
      self.remove(key);
      // The table goes when install made it (from its depth) and nothing of the user's is in it.
      const table = key.slice(0, -1);
      if (table.length === 0 || from > table.length || !isEmpty(self.get(table))) return;
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

export const settingsText = (format: 'json' | 'toml', path: string, text: string | undefined): SettingsText =>
  format === 'toml' ? tomlSettings(path, text) : jsonSettings(path, text);
