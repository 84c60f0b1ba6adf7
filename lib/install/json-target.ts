// Adds, replaces and removes sparehand's hook entry in a JSON (or JSON-with-comments) settings file, editing the
// text in place with jsonc-parser so the user's comments, key order and layout survive.
import { type FormattingOptions, type ParseError, applyEdits, findNodeAtLocation, format, modify, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';
import { isObject } from '../agents/shapes.js';
import type { HookCommand, JsonHookTarget } from '../agents/types.js';
import { SparehandError } from '../errors.js';

type Json = Record<string, unknown>;

/** Parses a settings file, refusing anything that is not one JSON object (the file is then left untouched). */
export function parseSettings(path: string, text: string, comments: boolean): Json {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { disallowComments: !comments, allowTrailingComma: comments, allowEmptyContent: true });
  if (errors.length > 0) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    throw new SparehandError('PARSE', `cannot parse ${path} (line ${line}: ${printParseErrorCode(e.error)}); it was left untouched`, {
      hint: `fix the file (or move it away) and run the command again`,
    });
  }
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SparehandError('PARSE', `${path} is not a JSON object; it was left untouched`, { hint: 'fix the file and run the command again' });
  }
  return value as Json;
}

/** Indentation and line ends as the file already uses them, so inserted entries look like the rest. */
function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  return {
    insertSpaces: !indent?.startsWith('\t'),
    tabSize: indent && !indent.startsWith('\t') ? indent.length : 2,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

function at(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/**
 * Sets (or inserts into an array) the value at `path`, formatting only the inserted text, so the user's
 * neighbouring lines keep their layout (jsonc-parser's own formatting would reflow the whole line before).
 */
export function put(text: string, path: (string | number)[], value: unknown, insert = false): string {
  let out = text;
  for (const e of modify(text, path, value, { isArrayInsertion: insert })) {
    out = applyEdits(out, [e]);
    if (e.content.length > 0) {
      out = applyEdits(out, format(out, { offset: e.offset, length: e.content.length }, { ...formatting(text), keepLines: false }));
    }
  }
  return out;
}

/**
 * Removes the value at `path` as exactly as it can: an array element with the comma and whitespace that came with
 * it (so removing what `put` appended gives back the old bytes), a property through jsonc-parser.
 */
export function remove(text: string, path: (string | number)[]): string {
  const index = path.at(-1);
  if (typeof index !== 'number') return applyEdits(text, modify(text, path, undefined, {}));
  const list = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, path.slice(0, -1));
  const items = list?.children ?? [];
  const item = items[index];
  if (!list || !item) return text;
  const [from, to] =
    items.length === 1
      ? [list.offset + 1, list.offset + list.length - 1]
      : index === items.length - 1
        ? [items[index - 1]!.offset + items[index - 1]!.length, item.offset + item.length]
        : [item.offset, items[index + 1]!.offset];
  return text.slice(0, from) + text.slice(to);
}

/** The text a new file starts as. */
export function seedText(target: Pick<JsonHookTarget, 'seed'>): string {
  return `${JSON.stringify(target.seed ?? {}, null, 2)}\n`;
}

/** Indices of sparehand's entries in the hook array (empty when there is no array). */
export function ourIndices(target: JsonHookTarget, root: Json): number[] {
  const list = at(root, target.arrayPath);
  if (!Array.isArray(list)) return [];
  return list.flatMap((e, i) => (target.isOurs(e) ? [i] : []));
}

/** In a group shared with the user's own handlers (`{matcher, hooks: [theirs, ours]}`), the indices of ours. */
function sharedGroup(target: JsonHookTarget, entry: unknown): { key: string; ours: number[] } | undefined {
  if (!target.handlers || typeof entry !== 'object' || entry === null) return undefined;
  const { key, isOurs } = target.handlers;
  const list = (entry as Json)[key];
  if (!Array.isArray(list)) return undefined;
  const ours = list.flatMap((h, j) => (isOurs(h) ? [j] : []));
  return ours.length > 0 && ours.length < list.length ? { key, ours } : undefined;
}

/**
 * `text` with sparehand's entry in place: the first entry of ours replaced, any others removed, else appended. Where
 * the user put a handler of their own into sparehand's group, only sparehand's handler in it is replaced.
 */
export function installJson(target: JsonHookTarget, path: string, text: string | undefined, command: HookCommand): string {
  let out = text ?? seedText(target);
  const root = parseSettings(path, out, target.comments);
  const entry = target.entry(command);
  for (let depth = 1; depth < target.arrayPath.length; depth++) {
    const v = at(root, target.arrayPath.slice(0, depth));
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v))) {
      throw new SparehandError('PARSE', `${path}: ${target.arrayPath.slice(0, depth).join('.')} is not an object; it was left untouched`, {
        hint: 'fix the file and run the command again',
      });
    }
  }
  const list = at(root, target.arrayPath);
  if (list !== undefined && !Array.isArray(list)) {
    throw new SparehandError('PARSE', `${path}: ${target.arrayPath.join('.')} is not a list; it was left untouched`, {
      hint: 'fix the file and run the command again',
    });
  }
  if (list === undefined) return put(out, [...target.arrayPath], [entry]);
  const ours = ourIndices(target, root);
  if (ours.length === 1 && isDeepStrictEqual(list[ours[0]!], entry)) return out;
  for (const i of ours.slice(1).reverse()) out = remove(out, [...target.arrayPath, i]);
  const first = ours[0];
  if (first === undefined) return put(out, [...target.arrayPath, -1], entry, true);
  const shared = sharedGroup(target, list[first]);
  if (!shared) return put(out, [...target.arrayPath, first], entry);
  const handler = (entry[shared.key] as unknown[]).find((h) => target.handlers!.isOurs(h));
  const [j, ...extra] = shared.ours;
  for (const k of extra.reverse()) out = remove(out, [...target.arrayPath, first, shared.key, k]);
  const now = ((list[first] as Json)[shared.key] as unknown[])[j!];
  return isDeepStrictEqual(now, handler) ? out : put(out, [...target.arrayPath, first, shared.key, j!], handler);
}

/**
 * The depth (1 = the top key) from which `arrayPath` is missing in this file, i.e. what install will create;
 * undefined when the hook list is already there.
 */
export function missingFrom(target: JsonHookTarget, path: string, text: string | undefined): number | undefined {
  if (text === undefined) return 1;
  const root = parseSettings(path, text, target.comments);
  for (let depth = 1; depth <= target.arrayPath.length; depth++) {
    if (at(root, target.arrayPath.slice(0, depth)) === undefined) return depth;
  }
  return undefined;
}

/**
 * `text` without sparehand's entries (only sparehand's handler, where a group also holds the user's), pruning the
 * containers that became empty from depth `createdFrom` down (what install created; the user's own empty
 * `"PreToolUse": []` stays).
 */
export function uninstallJson(target: JsonHookTarget, path: string, text: string, createdFrom = 1): string {
  const root = parseSettings(path, text, target.comments);
  const ours = ourIndices(target, root);
  if (ours.length === 0) return text;
  const list = at(root, target.arrayPath) as unknown[];
  let out = text;
  for (const i of [...ours].reverse()) {
    const shared = sharedGroup(target, list[i]);
    if (!shared) out = remove(out, [...target.arrayPath, i]);
    else for (const j of [...shared.ours].reverse()) out = remove(out, [...target.arrayPath, i, shared.key, j]);
  }
  for (let depth = target.arrayPath.length; depth >= createdFrom; depth--) {
    const path_ = target.arrayPath.slice(0, depth);
    const v = at(parseSettings(path, out, target.comments), path_);
    const empty = Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0;
    if (!empty) break;
    out = remove(out, [...path_]);
  }
  return out;
}

/** Whether the file holds nothing but what a new file starts as (`{}`, `{"version": 1}`). */
export const onlySeed = (target: JsonHookTarget, path: string, text: string): boolean =>
  isDeepStrictEqual(parseSettings(path, text, target.comments), target.seed ?? {});

/** Where sparehand's handler sits in entry `group` of the hook list (0 where the entry is the handler itself). */
export function ourHandler(target: JsonHookTarget, group: unknown): number {
  if (!target.handlers || typeof group !== 'object' || group === null) return 0;
  const list = (group as Json)[target.handlers.key];
  return Array.isArray(list)
    ? Math.max(
        0,
        list.findIndex((h) => target.handlers!.isOurs(h)),
      )
    : 0;
}

/** sparehand's handlers in the file (its entries themselves where an entry is not a group), as the file has them. */
export function installedHandlers(target: JsonHookTarget, path: string, text: string): Json[] {
  const root = parseSettings(path, text, target.comments);
  const list = at(root, target.arrayPath) as unknown[];
  return ourIndices(target, root).flatMap((i) => {
    const entry = list[i];
    const handlers = target.handlers && isObject(entry) ? entry[target.handlers.key] : [entry];
    return Array.isArray(handlers) ? handlers.filter((h): h is Json => isObject(h) && (!target.handlers || target.handlers.isOurs(h))) : [];
  });
}

/** The installed entries' commands, read back from the file (for `agent test` and `agent status`). */
export function installedCommands(target: JsonHookTarget, path: string, text: string): string[] {
  const root = parseSettings(path, text, target.comments);
  const list = at(root, target.arrayPath) as unknown[];
  return ourIndices(target, root).flatMap((i) => {
    const c = target.commandOf(list[i]);
    return c === undefined ? [] : [c];
  });
}
