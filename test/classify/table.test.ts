// The decision and the rule for many commands: every SPEC example, each shell shape, local ones, the guard.
import { describe, expect, it } from 'vitest';
import { alreadyWrapped, classify, rewriteCommand } from '../../lib/classify/index.js';
import { EDGES, HEAVY, LOCAL, NOT_HEAVY } from './corpus.js';

describe('classify: heavy commands and their rewrite', () => {
  it.each(HEAVY)('%j → %s', (command, rule, rewrite) => {
    const c = classify(command);
    expect({ heavy: c.heavy, rule: c.rule }).toEqual({ heavy: true, rule });
    expect(rewriteCommand(c, 'sparehand')).toBe(rewrite);
    expect(c.wrap!.map((p) => p.text).join('')).toBe(command);
  });
});

describe('classify: left alone', () => {
  it.each(LOCAL)('%j → %s', (command, rule) => {
    const c = classify(command);
    expect({ heavy: c.heavy, rule: c.rule, wrap: c.wrap }).toEqual({ heavy: false, rule, wrap: undefined });
    expect(c.reason.length).toBeGreaterThan(10);
  });
  it.each(NOT_HEAVY)('%j → %s', (command, rule) => {
    expect(classify(command)).toMatchObject({ heavy: false, rule });
  });
});

// Issue 11's rules with the near misses each must leave as they were: a rule's first case is new, the others
// pin its edge (they held before it and must hold after it).

describe('issue 11: each rule and its edge', () => {
  it.each(EDGES)('%s', (_, cases) => {
    const got = cases.map(([command]) => {
      const c = classify(command);
      return [command, c.rule, c.heavy ? rewriteCommand(c, 'sparehand') : null];
    });
    expect(got).toEqual(cases);
  });
});

describe('guard and SPAREHAND=off', () => {
  const WRAPPED = [
    "sparehand run --or-local -- 'npm test'",
    'sparehand run -- npm test',
    '/usr/local/bin/sparehand run --or-local -- "npm test"',
    './node_modules/.bin/sparehand run -- npm test',
    'node /opt/sh/bin/sparehand.js run --or-local -- npm test',
    "'/usr/bin/node' '/opt/sh/bin/sparehand.js' run --or-local -- 'npm test'",
    '"/usr/bin/node" "/x/bin/sparehand.js" run -- "npm test"',
    'npx sparehand run -- npm test',
    'npx -y sparehand@1 run -- npm test',
    'CI=1 sparehand run -- npm test',
    'env FOO=1 sparehand --debug run -- cargo test',
    "cd pkg && sparehand run --or-local -- 'npm test 2>&1' | tail -5",
    'bash -c "sparehand run -- npm test"',
    "sparehand run -- 'npm test", // unparsable: the text still says it
  ];
  it.each(WRAPPED)('%j is already wrapped', (command) => {
    expect(alreadyWrapped(command)).toBe(true);
    expect(classify(command)).toMatchObject({ heavy: false, rule: 'guard: already runs through sparehand run' });
  });
  it.each(['npm test', 'sparehand classify -- npm test', 'echo sparehand', 'cat sparehand.md', ''])('%j is not wrapped', (command) => {
    expect(alreadyWrapped(command)).toBe(false);
  });
  it.each([
    'SPAREHAND=off npm test',
    'CI=1 SPAREHAND=off cargo test',
    "SPAREHAND='off' npm test",
    'export SPAREHAND=off; npm test',
    'cd x && SPAREHAND=off make',
  ])('%j is turned off', (command) => {
    expect(classify(command)).toMatchObject({ heavy: false, rule: 'off: SPAREHAND=off' });
  });
  it('SPAREHAND=on does not turn it off', () => {
    expect(classify('SPAREHAND=on npm test')).toMatchObject({ heavy: true, rule: 'heavy: npm test' });
  });
});

describe('user rules', () => {
  it('a heavy rule adds a command; local beats heavy; both beat the built-ins', () => {
    const rules = { heavy: ['npm run e2e', './scripts/check.sh', 'npm test'], local: ['npm test', 'cargo test --doc'] };
    expect(classify('npm run e2e -- --headed', rules)).toMatchObject({ heavy: true, rule: 'heavy (config): npm run e2e' });
    expect(classify('scripts/check.sh', rules)).toMatchObject({ heavy: false, rule: 'none' });
    expect(classify('./scripts/check.sh --all', rules)).toMatchObject({ heavy: true, rule: 'heavy (config): ./scripts/check.sh' });
    expect(classify('npm test', rules)).toMatchObject({ heavy: false, rule: 'local (config): npm test' });
    expect(classify('cargo test --doc', rules)).toMatchObject({ heavy: false, rule: 'local (config): cargo test --doc' });
    expect(classify('cargo test --lib', rules)).toMatchObject({ heavy: true, rule: 'heavy: cargo test' });
    expect(classify('npm test && npm run build', rules)).toMatchObject({ heavy: false, rule: 'local (config): npm test' });
    expect(rewriteCommand(classify('npm run build && npm test', rules), 'sparehand')).toBe("sparehand run --or-local -- 'npm run build' && npm test");
  });
  it('a heavy rule sends a build tree command the built-ins keep here', () => {
    expect(classify('ninja -C out')).toMatchObject({ heavy: false, rule: 'local: ninja' });
    expect(classify('ninja -C out', { heavy: ['ninja -C out'] })).toMatchObject({ heavy: true, rule: 'heavy (config): ninja -C out' });
    expect(classify('make -C build', { local: ['make -C build'] })).toMatchObject({ heavy: false, rule: 'local (config): make -C build' });
  });
  it('a trailing * matches the start of a word, and the first word matches by basename', () => {
    const rules = { heavy: ['just test*'], local: ['make docs*'] };
    expect(classify('just test-all', rules)).toMatchObject({ heavy: true, rule: 'heavy (config): just test*' });
    expect(classify('/usr/bin/make docs-html', rules)).toMatchObject({ heavy: false, rule: 'local (config): make docs*' });
  });
});

describe('never throws', () => {
  it.each([
    '\u0000',
    '"',
    "'",
    '`',
    '$(',
    '${',
    '((',
    '))',
    ';;',
    '|',
    '&&&',
    '\\',
    'a\\',
    'x'.repeat(70_000),
    '((npm test))',
    '$((1+2))',
    'npm test $((1+2))',
    '\uD800',
    'npm test 2>',
    '>',
    '< <',
    ')(',
    '!',
    'time',
    'timeout 5',
    'bash -c',
    'env',
    '{a}>x npm test',
  ])('%j', (command) => {
    const c = classify(command);
    expect(c.heavy).toBe(false);
    expect(typeof c.rule).toBe('string');
  });
  it('deep nesting is "cannot parse", not a crash', () => {
    expect(classify('"$('.repeat(20_000))).toMatchObject({ heavy: false, rule: 'local: cannot parse (nested too deep)' });
    expect(classify(`npm test && ${'(cd a && '.repeat(6000)}make${')'.repeat(6000)}`)).toMatchObject({
      heavy: false,
      rule: 'local: cannot parse (nested too deep)',
    });
  });
  it('non-string input and odd rules', () => {
    expect(classify(undefined as unknown as string).heavy).toBe(false);
    expect(classify('npm test', { heavy: [''], local: ['  '] }).heavy).toBe(true);
  });
});

describe('rewriteCommand', () => {
  it('names sparehand with any shell-ready invocation', () => {
    const c = classify('cd pkg && CI=1 npm test > /tmp/x.log 2>&1 &');
    expect(rewriteCommand(c, "'/usr/bin/node' '/opt/sh/bin/sparehand.js'")).toBe(
      "cd pkg && '/usr/bin/node' '/opt/sh/bin/sparehand.js' run --or-local -- 'CI=1 npm test 2>&1' > /tmp/x.log &",
    );
  });
  it('refuses a command that is not heavy', () => {
    expect(() => rewriteCommand(classify('ls'), 'sparehand')).toThrow(/not heavy/);
  });
});
