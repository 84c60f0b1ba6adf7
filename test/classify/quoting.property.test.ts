// Property: whatever the agent wrote, the rewritten command, run by real bash, hands sparehand exactly the
// heavy part's bytes. A fake `sparehand` (a tiny sh script) records what it received; one bash runs every case.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bashQuote, classify, rewriteCommand } from '../../lib/classify/index.js';
import type { Classification } from '../../lib/classify/types.js';
import { tempDir, tool } from '../helpers/context.js';

// Runs `lines` (id → shell line naming the invocation `<fake> <id>`) in one bash; returns what the fake calls of
// each line received, in order (a split line calls it once per part it sends).
function runBatch(lines: (invocation: (id: number) => string) => string[]): { got: Map<number, string[]>; meta: Map<number, string[]> } {
  const dir = tempDir('sparehand-quote-');
  const rec = join(dir, 'rec');
  mkdirSync(rec);
  mkdirSync(join(dir, 'work'));
  // NUL cannot occur in an argument, so it separates the calls.
  const fake = tool(dir, 'fake', `id=$1; shift\nprintf '%s %s %s %s\\n' "$#" "$1" "$2" "$3" >> "${rec}/$id.meta"\nprintf '%s\\0' "$4" >> "${rec}/$id"`);
  const script = lines((id) => `${bashQuote(fake)} ${id}`);
  // Each case in its own subshell so a `cd` or an `exit` in one cannot disturb the next; the subshell waits
  // for a case that ends in `&` (the outer `wait` does not see its grandchildren: flaky on a loaded machine).
  const body = `${script.map((l) => `(\n${l}\nwait\n) </dev/null >/dev/null 2>&1\n`).join('')}wait\n`;
  writeFileSync(join(dir, 'script.sh'), body);
  execFileSync('/bin/bash', [join(dir, 'script.sh')], { cwd: join(dir, 'work'), stdio: 'ignore', timeout: 120_000 });
  const got = new Map<number, string[]>();
  const meta = new Map<number, string[]>();
  for (let id = 0; id < script.length; id++) {
    try {
      got.set(
        id,
        readFileSync(join(rec, String(id)), 'utf8')
          .split('\0')
          .slice(0, -1),
      );
      meta.set(
        id,
        readFileSync(join(rec, `${id}.meta`), 'utf8')
          .split('\n')
          .slice(0, -1),
      );
    } catch {
      // missing: the case never reached the fake
    }
  }
  return { got, meta };
}

const special = fc.constantFrom(
  "'",
  '"',
  '$',
  '`',
  '\\',
  '\n',
  '!',
  ' ',
  '\t',
  '$(',
  '${',
  '*',
  ';',
  '&',
  '|',
  '#',
  '~',
  '\r',
  "'\\''",
  'é',
  '🙂',
  '\u200b',
  '中',
);
const chunk = fc.oneof(special, fc.string({ unit: 'binary', maxLength: 4 }));
const anyString = fc
  .array(chunk, { maxLength: 12 })
  .map((a) => a.join(''))
  .filter((s) => !s.includes('\0') && !/\p{Cs}/u.test(s)); // no NUL, no lone surrogate (a file cannot hold one)

/** The texts each sent part hands over: its piece and what was moved into it (a `2>&1`). */
const sentTexts = (c: Classification): string[] | undefined => {
  if (!c.wrap) return undefined;
  const out: string[] = [];
  for (const p of c.wrap) {
    if (p.send) out.push(p.text);
    else if (p.into && out.length) out[out.length - 1] += p.as ?? p.text;
  }
  return out;
};
/** A `2>&1` after the heavy command goes inside its run (sparehand's own lines stay out of the pipe or file). */
const joinedInside = (after: string): string => (after.includes('2>&1') ? ' 2>&1' : '');
/** An argument that climbs out of the folder (`..`) keeps the command here: not the shapes these cases are about. */
const staysInside = (arg: string): boolean => !arg.includes('..');

const quoteArg = fc.constantFrom<(s: string) => string>(
  bashQuote,
  (s) => `"${s.replace(/["$`\\]/g, (c) => `\\${c}`)}"`,
  (s) => (s === '' ? "''" : s.replace(/[^A-Za-z0-9_./-]/gu, (c) => (c === '\n' ? "$'\\n'" : `\\${c}`))),
);
const heavyCmd = fc.constantFrom('npm test --', 'cargo test', 'pytest -k', 'make test', 'go test ./... -run', 'npx vitest run');
const envPrefix = fc.constantFrom('', 'CI=1 ', "X='a b' ", 'env FOO=1 ');

describe('bash hands sparehand exactly the bytes', () => {
  it('for random strings (quotes, $, backticks, newlines, unicode) as the whole inner part', () => {
    const samples = fc.sample(anyString, { numRuns: 2000, seed: 42 });
    const { got, meta } = runBatch((inv) =>
      samples.map((s, id) => rewriteCommand({ heavy: true, rule: 'test', reason: '', wrap: [{ text: s, send: true }] } as Classification, inv(id))),
    );
    for (let id = 0; id < samples.length; id++) {
      expect({ id, got: got.get(id), meta: meta.get(id) }).toEqual({ id, got: [samples[id]], meta: ['4 run --or-local --'] });
    }
  });

  it('for generated heavy commands with random quoted arguments, in every shape', () => {
    const arg = fc
      .tuple(anyString, quoteArg)
      .map(([s, q]) => q(s))
      .filter(staysInside);
    const outside = fc.constantFrom('', 'cd . && ', 'time ', 'timeout 60 ', 'cd .; ', 'timeout -vk 5 60 ', 'timeout --k=5 --pres 60 ');
    const after = fc.constantFrom('', ' 2>&1', ' > out.log 2>&1', ' 2>&1 | tail -5', ' &', ' | cat', '; ', ' # comment $x `y`');
    // (`timeout` runs a program, so `timeout 60 CI=1 …` is not a shape bash users write.)
    const gen = fc
      .tuple(outside, envPrefix, heavyCmd, fc.array(arg, { maxLength: 4 }), after)
      .filter(([o, e]) => !(o.startsWith('timeout') && e.includes('=') && !e.startsWith('env')))
      .map(([o, e, h, args, a]) => {
        const inner = [e + h, ...args].join(' ');
        return { command: o + inner + a, inner: inner + joinedInside(a) };
      });
    const samples = fc.sample(gen, { numRuns: 1500, seed: 7 });
    const classified = samples.map((s) => classify(s.command));
    for (const [i, c] of classified.entries()) {
      expect({ command: samples[i]?.command, heavy: c.heavy, inner: sentTexts(c) }).toEqual({
        command: samples[i]?.command,
        heavy: true,
        inner: [samples[i]?.inner],
      });
    }
    const { got } = runBatch((inv) => classified.map((c, id) => rewriteCommand(c, inv(id))));
    for (let id = 0; id < samples.length; id++) expect({ id, got: got.get(id) }).toEqual({ id, got: [samples[id]?.inner] });
  });

  it('for split chains: each heavy part handed over exactly, the parts that stay here run here', () => {
    const arg = fc
      .tuple(anyString, quoteArg)
      .map(([s, q]) => q(s))
      .filter(staysInside);
    const heavyPart = fc.tuple(envPrefix, heavyCmd, fc.array(arg, { maxLength: 3 })).map(([e, h, args]) => [e + h, ...args].join(' '));
    const outside = fc.constantFrom('', 'cd . && ', 'time ', 'timeout -vk 5 60 ', 'cd .; ');
    const afterFirst = fc.constantFrom('', ' 2>&1', ' > out.log 2>&1', ' 2>&1 | tail -5', ' | cat');
    // `A && git diff --stat` sends A; `A && cd . && B && cd ..` sends A and B, the `cd`s stay here.
    const gen = fc
      .tuple(outside, heavyPart, afterFirst, heavyPart, fc.boolean())
      .filter(([o, a]) => !(o.startsWith('timeout') && /^[A-Z]+=/.test(a)))
      .map(([o, a, after, b, twoParts]) =>
        twoParts
          ? { command: `${o}${a}${after} && cd . && ${b} && cd ..`, sent: [a + joinedInside(after), b] }
          : { command: `${o}${a}${after} && git diff --stat`, sent: [a + joinedInside(after)] },
      );
    const samples = fc.sample(gen, { numRuns: 800, seed: 11 });
    const classified = samples.map((s) => classify(s.command));
    for (const [i, c] of classified.entries()) {
      const sent = sentTexts(c);
      expect({ command: samples[i]?.command, sent }).toEqual({ command: samples[i]?.command, sent: samples[i]?.sent });
    }
    const { got } = runBatch((inv) => classified.map((c, id) => rewriteCommand(c, inv(id))));
    for (let id = 0; id < samples.length; id++) expect({ id, got: got.get(id) }).toEqual({ id, got: samples[id]?.sent });
  });

  it('classify never throws on random strings, and a heavy cut is always exact substrings', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, fc.string({ unit: 'grapheme', maxLength: 80 })), (s) => {
        const c = classify(`npm test ${s}`);
        if (c.wrap) expect(c.wrap.map((p) => p.text).join('')).toBe(`npm test ${s}`);
        const d = classify(s);
        expect(typeof d.rule).toBe('string');
      }),
      { numRuns: 5000, seed: 3 },
    );
  });
});
