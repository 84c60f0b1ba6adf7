// Careful text edits of a tool's settings file for --sandbox-access: add to (or take from) a list, set (or remove) a
// key, prune what became empty. The user's other keys, comments and layout stay; each edit is checked by parsing. JSON
// here; TOML is install/toml-text.ts's, the one TOML editor.
import { parse } from 'jsonc-parser';
import { isDeepStrictEqual } from 'node:util';
import { SparehandError } from '../errors.js';
import { parseSettings, put as putJson, remove as removeJson } from '../install/json-target.js';
import { type SettingsText, checkedEdit, isEmptyValue, missingIn, valueAt } from '../install/settings-text.js';
import { tomlSettings } from '../install/toml-text.js';

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
    get: (key) => valueAt(doc(), key),
    missingFrom: (key) => missingIn(doc(), key),
    add(key, values) {
      const now = self.get(key);
      if (now === undefined) edit([...key], [...values]);
      else if (!Array.isArray(now)) throw new SparehandError('INSTALL', `${path}: ${key.join('.')} is not a list; it was left untouched`);
      else for (const v of values) edit([...key, -1], v, true);
      checkedEdit(path, doc, key, (v) => Array.isArray(v) && values.every((x) => v.includes(x)));
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
      checkedEdit(path, doc, key, (v) => isDeepStrictEqual(v, value));
    },
    remove: (key) => edit([...key], undefined),
    prune(key, from) {
      for (let depth = key.length; depth >= from; depth--) {
        const v = self.get(key.slice(0, depth));
        if (v !== undefined && !isEmptyValue(v)) break;
        if (v !== undefined) edit([...key.slice(0, depth)], undefined);
      }
    },
    empty: () => isEmptyValue(parse(text)) || text.trim() === '',
    text: () => text,
  };
  return self;
}

export const settingsText = (format: 'json' | 'toml', path: string, text: string | undefined): SettingsText =>
  format === 'toml' ? tomlSettings(path, text) : jsonSettings(path, text);
