// The edits a tool's settings file is given, whatever its format: the JSON editor (sandbox/edit-settings.ts) and the
// TOML one (install/toml-text.ts) both fill in SettingsText, and read their parsed documents the same way.
import { SparehandError } from '../errors.js';

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

/** The value at a key path of a parsed document (JSON or TOML). */
export function valueAt(root: Record<string, unknown>, path: readonly string[]): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

export const isEmptyValue = (v: unknown): boolean => (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0);

export function missingIn(doc: Record<string, unknown>, key: readonly string[]): number | undefined {
  for (let depth = 1; depth <= key.length; depth++) if (valueAt(doc, key.slice(0, depth)) === undefined) return depth;
  return undefined;
}

/** Refuses an edit whose result, parsed again, is not what was wanted at `key`. */
export function checkedEdit(path: string, doc: () => unknown, key: readonly string[], want: (v: unknown) => boolean): void {
  if (!want(valueAt(doc() as Record<string, unknown>, key))) {
    throw new SparehandError('INSTALL', `could not change ${key.join('.')} in ${path} (its layout is unusual); it was left untouched`, {
      hint: 'make the change by hand (`sparehand agent status` says which), or move the file away and run the command again',
    });
  }
}
