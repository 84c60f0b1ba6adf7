// Adds, replaces and removes sparehand's table in a TOML file's array of tables (`[[hooks]]`, `[[hooks.PreToolUse]]`),
// editing the text so the user's tables, comments and layout stay; every result is parsed again before it is used.
import { parse } from 'smol-toml';
import type { HookCommand, TomlHookTarget } from '../agents/types.js';
import { SparehandError } from '../errors.js';
import { parseToml, tableEnd, tomlAt, tomlKey } from './toml-trust.js';

/** One `[[path]]` table of the file: its lines [start, end), trailing blank lines left out, and what it holds. */
interface Block {
  start: number;
  end: number;
  value: unknown;
}

/** The keys of an array's path as a TOML header writes them: `hooks.PreToolUse`. */
export const tomlPath = (path: readonly string[]): string => path.map(tomlKey).join('.');

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
      value = (tomlAt(parse(lines.slice(start, end).join('\n')) as Record<string, unknown>, path) as unknown[] | undefined)?.[0];
    } catch {
      value = undefined;
    }
    out.push({ start, end, value });
  }
  return out;
}

/** The table as TOML text (strings in basic quotes: JSON's escapes are TOML's). */
export function renderTable(path: readonly string[], entry: Record<string, string | number | boolean>): string {
  const value = (v: string | number | boolean) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  return [`[[${tomlPath(path)}]]`, ...Object.entries(entry).map(([k, v]) => `${tomlKey(k)} = ${value(v)}`)].join('\n');
}

/** The parsed file, refused (named) when it does not parse or its key is not an array of tables. */
function checked(target: TomlHookTarget, path: string, text: string): Record<string, unknown> {
  const root = parseToml(path, text);
  for (let depth = 1; depth < target.arrayPath.length; depth++) {
    const v = tomlAt(root, target.arrayPath.slice(0, depth));
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v))) {
      throw new SparehandError('PARSE', `${path}: ${target.arrayPath.slice(0, depth).join('.')} is not a table; it was left untouched`, {
        hint: 'fix the file and run the command again',
      });
    }
  }
  const list = tomlAt(root, target.arrayPath);
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
  checked(target, path, src);
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
    list = tomlAt(checked(target, path, out), target.arrayPath) as unknown[] | undefined;
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
  checked(target, path, text);
  let lines = text.split('\n');
  const mine = ours(target, lines);
  if (mine.length === 0) return text;
  for (const b of [...mine].reverse()) lines = without(lines, b);
  return lines.join('\n');
}

/** The commands of sparehand's tables in the file (for `agent test` and `agent status`). */
export function installedTomlCommands(target: TomlHookTarget, path: string, text: string): string[] {
  checked(target, path, text);
  return ours(target, text.split('\n')).flatMap((b) => {
    const c = target.commandOf(b.value);
    return c === undefined ? [] : [c];
  });
}
