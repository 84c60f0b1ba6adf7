// Every JSON typo in the config file gets a line and column: the locator agrees with JSON.parse on what is JSON, and
// names the place of each mistake, the trailing comma (which JSON.parse names no place for) included.
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../lib/config.js';
import { isSparehandError } from '../lib/errors.js';
import { jsonSyntaxError, lineColumn } from '../lib/json-error.js';
import { homeWith } from './helpers/context.js';

const parses = (s: string): boolean => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

/** The message loadConfig throws for a config file holding `text`. */
function configError(text: string): { message: string; file: string } {
  const h = homeWith(text);
  try {
    loadConfig({ home: h.home, env: h.env });
  } catch (e) {
    if (isSparehandError(e)) return { message: e.message, file: h.file };
    throw e;
  }
  throw new Error('the config was taken');
}

describe('a config file that is not JSON', () => {
  it("a trailing comma in the workers list is named by line and column (the comma's)", () => {
    const text = '{\n  "workers": [\n    { "name": "box", "destination": "me@box" },\n  ]\n}\n';
    const { message, file } = configError(text);
    expect(message).toBe(`${file}:3:47: not valid JSON: a trailing comma before ']' (JSON allows none: remove the comma)`);
  });

  it.each([
    ['{\n  "rules": { "heavy": ["mybuild"] },\n}\n', '2:36', "a trailing comma before '}' (JSON allows none: remove the comma)"],
    ['{ "workers": [1 2] }', '1:17', "expected ',' or ']' after a value in a list, found '2'"],
    ['{ "a": 1 "b": 2 }', '1:10', "expected ',' or '}' after a property's value, found '\"'"],
    ["{ 'a': 1 }", '1:3', "expected a property name in double quotes, found '''"],
    ['{ "a" 1 }', '1:7', "expected ':' after the property name, found '1'"],
    ['{ "a": tru }', '1:8', "expected a value, found 't'"],
    ['{ "a": 01 }', '1:8', 'a malformed number'],
    ['{ "a": "x\ty" }', '1:10', 'U+0009 inside a string (write it as an escape: \\n, \\t, \\u00XX)'],
    ['{ "a": "\\q" }', '1:9', 'a bad escape in a string: \\q (a backslash is written \\\\)'],
    ['{ "a": "x', '1:10', "a string that is never closed (a missing '\"')"],
    ['{ "a": 1', '1:9', "expected ',' or '}' after a property's value, found the end of the file"],
    ['', '1:1', 'expected a value, found the end of the file'],
    ['{}\n{}', '2:1', "expected the end of the file after the JSON value, found '{'"],
    ['\ufeff{}', '1:1', 'expected a value, found U+FEFF'],
  ])('%j: %s', (text, at, problem) => {
    const { message, file } = configError(text);
    expect(message).toBe(`${file}:${at}: not valid JSON: ${problem}`);
  });

  it('every text JSON.parse refuses is named by line and column in the config error', () => {
    const h = homeWith(undefined);
    const typo = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom(',', '"', ':', '}', ']', '{', '[', 'x', "'", '\\'))
      .map(([j, at, c]) => {
        const p = at % (j.length + 1);
        return `{ "workers": [${j.slice(0, p)}${c}${j.slice(p)}] }`;
      })
      .filter((t) => !parses(t));
    fc.assert(
      fc.property(typo, (text) => {
        writeFileSync(h.file, text);
        expect(() => loadConfig({ home: h.home, env: h.env })).toThrow(
          new RegExp(`^${h.file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: not valid JSON: `),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with JSON.parse on what is JSON, and names a place in the text for all that is not', () => {
    const alphabet = fc.constantFrom(...'{}[],:"\\ \n\t0123456789.-+eEtrufalsn'.split(''), 'true', 'null', '"a"', '\\u00e9');
    const texts = fc.oneof(
      fc.array(alphabet, { maxLength: 30 }).map((a) => a.join('')),
      // Valid JSON with one character put in, taken out or replaced: the typos people make.
      fc.tuple(fc.json(), fc.nat(), fc.constantFrom(',', '"', ':', '}', ']', '', 'x', "'"), fc.boolean()).map(([j, at, c, replace]) => {
        const p = at % (j.length + 1);
        return j.slice(0, p) + c + j.slice(replace ? p + 1 : p);
      }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const e = jsonSyntaxError(text);
        expect(e === undefined).toBe(parses(text));
        if (e) {
          expect(e.offset).toBeGreaterThanOrEqual(0);
          expect(e.offset).toBeLessThanOrEqual(text.length);
          expect(lineColumn(text, e.offset)).toMatch(/^\d+:\d+$/);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
