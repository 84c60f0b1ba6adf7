// Reading the worker's results block out of ssh's stdout: the command's own bytes pass untouched, whatever the
// chunking; a block cut short is no block.
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ResultsParser } from '../../lib/remote/results.js';
import { tempDir } from '../helpers/context.js';
import { md5 } from '../helpers/project.js';

function block(records: string[], end = records.length): Buffer {
  return Buffer.from(`\0sparehand-results N1 ran 7\n${records.join('')}end ${end}\n`);
}
const file = (op: string, path: string, content: string, opts: { base?: string; same?: number; footer?: string } = {}) =>
  `${op} f 420 1700000000.500000 ${opts.same !== undefined && opts.same >= 0 ? 0 : content.length} ${opts.base ?? '-'} ${opts.same ?? -1} ${Buffer.byteLength(path)} 0\n${path}${opts.same !== undefined && opts.same >= 0 ? '' : `${content}${content ? `${opts.footer ?? md5(content)}\n` : ''}`}`;

/** Feeds `bytes` in chunks of `size`; returns the output bytes and the parser. */
function feed(bytes: Buffer, size: number) {
  const dir = tempDir();
  const parser = new ResultsParser('N1', () => dir);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(parser.push(bytes.subarray(i, i + size)));
  parser.close();
  return { output: Buffer.concat(out).toString(), parser };
}

describe('the results block', () => {
  const output = 'line 1\n\0 a NUL, then \0sparehand-results N0 (another run\'s nonce)\npartial';
  const bytes = Buffer.concat([Buffer.from(output), block([file('C', 'dist/out.js', 'built\n'), file('C', 'dist/copy.js', '', { same: 0 }), file('M', 'a b/ü.txt', 'x', { base: md5('y') })]), Buffer.from('late output\n')]);

  for (const size of [1, 2, 7, 64, 100_000]) {
    it(`chunks of ${size} byte(s): output passes untouched, every change parsed, content staged`, () => {
      const { output: out, parser } = feed(bytes, size);
      expect(out).toBe(`${output}late output\n`);
      const r = parser.results;
      expect(r?.kind).toBe('ran');
      if (r?.kind !== 'ran') return;
      expect(r.status).toBe(7);
      expect(r.changes.map((c) => [c.op, c.path, c.hash, c.base, c.problem])).toEqual([
        ['C', 'dist/out.js', md5('built\n'), undefined, undefined],
        ['C', 'dist/copy.js', md5('built\n'), undefined, undefined],
        ['M', 'a b/ü.txt', md5('x'), md5('y'), undefined],
      ]);
      const [out1, copy] = r.changes;
      expect(readFileSync(out1?.staged as string, 'utf8')).toBe('built\n');
      expect(statSync(copy?.staged as string).ino).toBe(statSync(out1?.staged as string).ino);
    });
  }

  it('a block cut short, or with a wrong count, is no block', () => {
    const whole = block([file('C', 'a.txt', 'hello\n')]);
    expect(feed(whole.subarray(0, whole.length - 3), 10).parser.results).toBeUndefined();
    expect(feed(whole.subarray(0, whole.length - 3), 10).parser.seen).toBe(true);
    expect(feed(block([file('C', 'a.txt', 'hello\n')], 2), 10).parser.results).toBeUndefined();
  });

  it('names sparehand will not write, and content that changed while sent, are marked, not applied', () => {
    const { parser } = feed(block([file('C', '../escape.txt', 'x'), file('C', 'a//b', 'x'), file('C', '.sparehand/x', 'x'), file('C', 'ok.txt', 'abc', { footer: 'short' })]), 5);
    const r = parser.results;
    expect(r?.kind === 'ran' && r.changes.map((c) => c.problem)).toEqual([
      'a path with an empty, . or .. part', 'a path with an empty, . or .. part', "sparehand's own folder", 'it changed on the worker while it was being sent',
    ]);
  });

  it('a refusal carries its reason', () => {
    const { parser, output: out } = feed(Buffer.from('\0sparehand-results N1 refused installing dependencies failed (exit 1): npm ci\n'), 3);
    expect(out).toBe('');
    expect(parser.results).toEqual({ kind: 'refused', reason: 'installing dependencies failed (exit 1): npm ci' });
  });
});
