// The hot path's shortcut must never hide a heavy command: every heavy verdict names a program in the
// vocabulary. Checked over commands built from every name the classifier's own sources mention.
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify } from '../../lib/classify/index.js';
import { mayNameHeavy, ruleWords } from '../../lib/classify/vocabulary.js';

const dir = new URL('../../lib/classify/', import.meta.url);
/** Every quoted word and object key in the classifier's sources: programs, subcommands, flags, script names. */
const words = [
  ...new Set(
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'vocabulary.ts')
      .flatMap((f) => {
        const text = readFileSync(new URL(f, dir), 'utf8');
        return [
          ...[...text.matchAll(/'(-{0,2}[A-Za-z0-9][\w.:@/+-]*)'/g)].map((m) => m[1] as string),
          ...[...text.matchAll(/(?:^|[{,]\s*)([A-Za-z][\w-]*)\s*:\s*['{]/gm)].map((m) => m[1] as string),
        ];
      }),
  ),
];

describe('vocabulary (the hook hot path shortcut)', () => {
  it('reads the classifier sources (sanity)', () => {
    expect(words).toEqual(expect.arrayContaining(['cargo', 'vitest', 'pytest', 'gradlew', 'test', 'build', '--watch']));
  });

  it('every heavy command built from those words names a vocabulary program', () => {
    const word = fc.constantFrom(...words);
    const prefix = fc.constantFrom('', './', 'node_modules/.bin/', '/usr/local/bin/', 'CI=1 ', 'timeout 60 ', 'npx ', 'bash -c ', 'uv run ', 'env ');
    const command = fc
      .tuple(prefix, word, fc.array(word, { maxLength: 3 }), fc.constantFrom('', ' 2>&1 | tail', ' && echo done', ' > out.log'))
      .map(([p, w, rest, tail]) => `${p}${[w, ...rest].join(' ')}${tail}`);
    fc.assert(
      fc.property(command, (c) => {
        if (classify(c).heavy) expect(mayNameHeavy(c), c).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('a user rule makes its words count', () => {
    expect(mayNameHeavy('./scripts/ci.sh --fast')).toBe(false);
    expect(classify('./scripts/ci.sh --fast', { heavy: ['./scripts/ci.sh'] }).heavy).toBe(true);
    expect(mayNameHeavy('./scripts/ci.sh --fast', ruleWords(['./scripts/ci.sh']))).toBe(true);
  });

  it('light commands and the rest of a payload name none', () => {
    for (const s of ['ls -la', 'git status', 'cat package.json', 'Run the test suite', '/home/dev/.claude/projects/x.jsonl', '0c1fd008-13ad']) {
      expect(mayNameHeavy(s), s).toBe(false);
    }
  });
});
