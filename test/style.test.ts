// The core never names a coding tool: only lib/agents/ knows them (STYLE.md). And the repository stands alone.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../lib/agents/index.js';

const ROOT = new URL('../', import.meta.url).pathname;
// Every registered tool: its id, and the first word of it (`claude` of `claude-code`), from the registry itself.
const words = [...new Set(allAgents().flatMap((a) => [a.id, a.id.split('-')[0]!]))];
const NAMES = new RegExp(`\\b(${words.map((w) => w.replace(/-/g, '\\-')).join('|')})\\b`, 'i');

/** The files under `dir` (relative to the repository) whose names match `ext`, leaving out folders named in `skip`. */
function files(dir: string, ext: RegExp, skip: readonly string[] = []): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(ROOT, dir, f);
    if (statSync(p).isDirectory()) return skip.includes(f) ? [] : files(relative(ROOT, p), ext, skip);
    return ext.test(f) ? [p] : [];
  });
}

/** `path:line: text` for every line of `paths` that `re` matches. */
const linesMatching = (paths: readonly string[], re: RegExp): string[] =>
  paths.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((line, i) => (re.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('agent-neutral core', () => {
  it('no tool name appears in lib/ outside lib/agents/', () => {
    expect(linesMatching(files('lib', /\.ts$/, ['agents']), NAMES)).toEqual([]);
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
