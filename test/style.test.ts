// The core never names a coding tool: only lib/agents/ knows them (STYLE.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../lib/agents/index.js';

const LIB = new URL('../lib/', import.meta.url).pathname;
// Every registered tool: its id, and the first word of it (`claude` of `claude-code`), from the registry itself.
const words = [...new Set(allAgents().flatMap((a) => [a.id, a.id.split('-')[0]!]))];
const NAMES = new RegExp(`\\b(${words.map((w) => w.replace(/-/g, '\\-')).join('|')})\\b`, 'i');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('agent-neutral core', () => {
  it('no tool name appears in lib/ outside lib/agents/', () => {
    const offenders = files(LIB)
      .filter((f) => !relative(LIB, f).startsWith('agents/'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => [line, i] as const)
          .filter(([line]) => NAMES.test(line))
          .map(([line, i]) => `${relative(LIB, f)}:${i + 1}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });
});

describe('the repository stands alone', () => {
  // Built from parts so that this file does not match itself.
  const BESIDE = new RegExp(['\\.\\./shared\\b', 'shared/(agents|tools)', ['REAL', 'TOOLS'].join('-')].join('|'));
  const ROOT = new URL('../', import.meta.url).pathname;
  it('nothing in lib/, test/, scripts/, bench/ or docs/ reads or cites a folder beside the clone', () => {
    const text = (dir: string): string[] =>
      readdirSync(join(ROOT, dir)).flatMap((f) => {
        const p = join(ROOT, dir, f);
        if (statSync(p).isDirectory()) return f === 'vendor-schemas' ? [] : text(relative(ROOT, p));
        return /\.(ts|js|md|json)$/.test(f) ? [p] : [];
      });
    const offenders = ['lib', 'test', 'scripts', 'bench', 'docs'].flatMap(text).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => [line, i] as const)
        .filter(([line]) => BESIDE.test(line))
        .map(([line, i]) => `${relative(ROOT, f)}:${i + 1}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
