// The last config that parsed, kept in the cache folder, so that a typo in the config file (a trailing comma)
// does not turn every hook off: the hook and `run` go on with the last good config (or the built-in defaults) and
// say which file and line is broken; the commands that write the config still refuse it.
import { join } from 'node:path';
import type { Context } from './context.js';
import { cacheDir } from './paths.js';
import { type Said, readOwnFile, writeOwnFile } from './state/own-file.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

const keptPath = (c: Env): string => join(cacheDir(c), 'config.last-good.json');

/** What the check of the kept text found: the config and the unknown fields, by the schema `by` (lib/config-schema-id.ts). */
export interface Checked {
  by: string;
  config: unknown;
  unknown: string[];
}

interface Kept {
  path: string;
  text: string;
  saved: string;
  checked?: Checked;
}

const isChecked = (v: unknown): v is Checked =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Checked).by === 'string' &&
  typeof (v as Checked).config === 'object' &&
  (v as Checked).config !== null &&
  !Array.isArray((v as Checked).config) &&
  Array.isArray((v as Checked).unknown) &&
  (v as Checked).unknown.every((u) => typeof u === 'string');

/** The kept copy of the config at `path`, if the last one that parsed was that file's (with what its check found). */
export function keptConfigText(c: Env, path: string): { text: string; saved: string; checked?: Checked } | undefined {
  try {
    const kept = JSON.parse(readOwnFile(c, keptPath(c)) ?? 'null') as Kept;
    if (kept.path !== path || typeof kept.text !== 'string') return undefined;
    return { text: kept.text, saved: kept.saved, ...(isChecked(kept.checked) ? { checked: kept.checked } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Keeps `text` (the config at `path`, which just parsed) and what its check found, unless that is kept already: the
 * hook then takes the checked config without checking the same text again (lib/config-checked.ts).
 */
export function keepConfigText(c: Env, path: string, text: string, checked?: Checked): void {
  const kept = keptConfigText(c, path);
  if (kept?.text === text && (checked === undefined || kept.checked?.by === checked.by)) return;
  const record: Kept = { path, text, saved: new Date().toISOString(), ...(checked ? { checked } : {}) };
  // A cache folder that cannot be written (a sandbox): the config itself was read; only the spare copy is missing.
  writeOwnFile(c, keptPath(c), `${JSON.stringify(record)}\n`);
}
