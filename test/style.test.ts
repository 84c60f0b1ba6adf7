// The core never names a coding tool: only lib/agents/ knows them (STYLE.md). And the repository stands alone.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../lib/agents/index.js';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
// Every registered tool: its id, and the first word of it (`claude` of `claude-code`), from the registry itself. An id
// that is also a keyword of the code (`continue`) is looked for as a name only: quoted, or capitalised as in prose.
const KEYWORDS = new Set([
  'break',
  'case',
  'catch',
  'continue',
  'default',
  'delete',
  'do',
  'else',
  'for',
  'if',
  'in',
  'new',
  'return',
  'switch',
  'this',
  'try',
  'while',
]);
const words = [...new Set(allAgents().flatMap((a) => [a.id, a.id.split('-')[0]!]))];
const esc = (w: string) => w.replace(/-/g, '\\-');
const alternatives = (ws: string[]) => ws.join('|') || '(?!)';
const NAMES = {
  plain: new RegExp(`\\b(${alternatives(words.filter((w) => !KEYWORDS.has(w)).map(esc))})\\b`, 'i'),
  keywords: new RegExp(
    alternatives(words.filter((w) => KEYWORDS.has(w)).flatMap((w) => [`'${w}'`, `"${w}"`, `\`${w}\``, `\\b${w[0]!.toUpperCase()}${esc(w.slice(1))}\\b`])),
  ),
  test(line: string): boolean {
    return this.plain.test(line) || this.keywords.test(line);
  },
};

/** The files under `dir` (relative to the repository) whose names match `ext`, leaving out folders named in `skip`. */
function files(dir: string, ext: RegExp, skip: readonly string[] = []): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(ROOT, dir, f);
    if (statSync(p).isDirectory()) return skip.includes(f) ? [] : files(relative(ROOT, p), ext, skip);
    return ext.test(f) ? [p] : [];
  });
}

/** `path:line: text` for every line of `paths` that `re` matches. */
const linesMatching = (paths: readonly string[], re: { test(line: string): boolean }): string[] =>
  paths.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((line, i) => (re.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('agent-neutral core', () => {
  // lib/in-process/ holds the entries of the bundles a tool loads into its own process (one per tool that can):
  // each stands above the registry and the hook both, so it is neither's (ARCHITECTURE.md).
  it('no tool name appears in lib/ outside lib/agents/ and the in-process entries', () => {
    expect(linesMatching(files('lib', /\.ts$/, ['agents', 'in-process']), NAMES)).toEqual([]);
  });

  it("an id that is also a keyword of the code is caught as a tool's name, not as the keyword", () => {
    const keyword = words.find((w) => KEYWORDS.has(w));
    expect(keyword).toBeDefined();
    const Name = `${keyword![0]!.toUpperCase()}${keyword!.slice(1)}`;
    for (const line of [`if (agent === '${keyword}') return;`, `const id = "${keyword}";`, `// ${Name} needs a longer timeout`]) {
      expect([line, NAMES.test(line)]).toEqual([line, true]);
    }
    for (const line of [`      ${keyword};`, `  [ -n "$dir" ] || ${keyword}`]) expect([line, NAMES.test(line)]).toEqual([line, false]);
  });
});

describe('the repository stands alone', () => {
  // Built from parts so that this file does not match itself.
  const BESIDE = new RegExp(['\\.\\./shared\\b', 'shared/(agents|tools)', ['REAL', 'TOOLS'].join('-')].join('|'));
  it('nothing in lib/, test/, scripts/, bench/ or docs/ reads or cites a folder beside the clone', () => {
    const paths = ['lib', 'test', 'scripts', 'bench', 'docs'].flatMap((d) => files(d, /\.(ts|js|md|json)$/, ['vendor-schemas']));
    expect(linesMatching(paths, BESIDE)).toEqual([]);
  });
});

describe('one way to start a program', () => {
  // Module imports only (a plugin's source that lib/ writes into a tool's folder is text, in double quotes).
  const STARTS = /^import\s+(?!type\b)[^;]*from '(node:child_process|child_process|execa)'/;
  it('in lib/, only lib/process.ts imports node:child_process or execa', () => {
    const found = linesMatching(files('lib', /\.ts$/), STARTS).filter((l) => !l.startsWith('lib/process.ts:'));
    expect(found).toEqual([]);
  });

  it('the check sees an import of either', () => {
    for (const line of ["import { spawn } from 'node:child_process';", "import { execa } from 'execa';"])
      expect([line, STARTS.test(line)]).toEqual([line, true]);
    expect(STARTS.test("import type { ChildProcess } from 'node:child_process';")).toBe(false);
  });
});
