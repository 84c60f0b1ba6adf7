// The worker's report, read here: every field checked, content staged (sparse stays sparse), and anything
// malformed or forged makes the whole report broken — fuzzed with random and mutated reports.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader, frame } from '../../lib/remote/frames.js';
import { ReportReader } from '../../lib/remote/report-reader.js';
import { tempDir } from '../helpers/context.js';

const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');

/** A change record as the worker sends it (lib/remote/worker/report.pl). */
function chg(op: string, type: string, path: string, o: { mode?: number; size?: number; base?: string; same?: number; target?: string; mtime?: string } = {}) {
  return frame(
    'chg',
    `${op} ${type} ${o.mode ?? 420} ${o.mtime ?? '1700000000.123456789'} ${o.size ?? 0} ${o.base ?? '-'} ${o.same ?? -1} ${Buffer.byteLength(path)}\n${path}${o.target ?? ''}`,
  );
}

function read(bytes: Buffer, dir = tempDir()) {
  const frames = new FrameReader();
  const report = new ReportReader({ dir: () => dir });
  for (const f of frames.push(bytes)) {
    if (!report.take(f)) report.broken ??= `not a report frame: ${f.type}`;
  }
  report.finish();
  return { report, frames, dir };
}

describe('the report reader', () => {
  it('reads changes of every kind, with content, links and hard links', () => {
    const content = 'hello\n';
    const bytes = Buffer.concat([
      chg('D', 'f', 'old.txt', { base: md5('x') }),
      chg('C', 'd', 'dist'),
      chg('D', 'd', 'gone-folder'),
      chg('C', 'f', 'dist/a.js', { size: 6 }),
      frame('dat', content),
      frame('sum', md5(content)),
      chg('C', 'f', 'dist/b.js', { size: 0, same: 3 }),
      chg('M', 'l', 'link', { base: md5('a'), target: 'dist/a.js' }),
      chg('T', 'f', 'touched', { base: md5('t'), mode: 0o755 }),
      chg('C', 's', 'fifo'),
      frame('end', '8'),
    ]);
    const { report } = read(bytes);
    expect(report.broken).toBeUndefined();
    expect(report.changes.map((c) => [c.op, c.type, c.path, c.hash])).toEqual([
      ['D', 'f', 'old.txt', undefined],
      ['C', 'd', 'dist', undefined],
      ['D', 'd', 'gone-folder', undefined],
      ['C', 'f', 'dist/a.js', md5(content)],
      ['C', 'f', 'dist/b.js', md5(content)],
      ['M', 'l', 'link', md5('dist/a.js')],
      ['T', 'f', 'touched', md5('t')],
      ['C', 's', 'fifo', undefined],
    ]);
    const [, , , a, b] = report.changes;
    expect(readFileSync(a?.staged as string, 'utf8')).toBe(content);
    expect(statSync(b?.staged as string).ino).toBe(statSync(a?.staged as string).ino);
    expect(report.changes[0]?.mtime).toBeCloseTo(Number('1700000000.123456789'), 6);
  });

  it('runs of zeros stay holes: a sparse file stays sparse', () => {
    const size = 64 * 1024 * 1024 + 3;
    const bytes = Buffer.concat([
      chg('C', 'f', 'sparse.img', { size }),
      frame('hole', String(size - 3)),
      frame('dat', 'end'),
      frame(
        'sum',
        (() => {
          const h = createHash('md5');
          const z = Buffer.alloc(1 << 20);
          for (let left = size - 3; left > 0; left -= z.length) h.update(z.subarray(0, Math.min(left, z.length)));
          return h.update('end').digest('hex');
        })(),
      ),
      frame('end', '1'),
    ]);
    const { report } = read(bytes);
    expect(report.broken).toBeUndefined();
    const st = statSync(report.changes[0]?.staged as string);
    expect(st.size).toBe(size);
    expect(st.blocks * 512).toBeLessThan(1024 * 1024);
  });

  it('a name that is not UTF-8 is marked, not applied', () => {
    const path = Buffer.from([0x61, 0xff, 0x62]);
    const bytes = Buffer.concat([frame('chg', Buffer.concat([Buffer.from('C f 420 1 0 - -1 3\n'), path])), frame('end', '1')]);
    expect(read(bytes).report.changes[0]?.problem).toBe('its name is not UTF-8');
  });

  it('an odd but real entry is that change alone: a pre-1970 mtime reads as it is, a mode it does not know is its problem', () => {
    const bytes = Buffer.concat([
      chg('C', 'f', 'old.txt', { size: 2, mtime: '-315619200.000000000' }),
      frame('dat', 'ab'),
      frame('sum', md5('ab')),
      chg('C', 'f', 'odd-mode', { mode: 0o170644 }),
      chg('C', 'f', 'far-future', { mtime: '99999999999999999999' }),
      chg('M', 'f', 'edited.txt', { size: 1, base: md5('a') }),
      frame('dat', 'b'),
      frame('sum', md5('b')),
      frame('end', '4'),
    ]);
    const { report } = read(bytes);
    expect(report.broken).toBeUndefined();
    expect(report.changes.map((c) => [c.path, c.mtime, c.problem])).toEqual([
      ['old.txt', -315619200, undefined],
      ['odd-mode', Number('1700000000.123456789'), 'its mode (0170644) is not one this machine knows'],
      ['far-future', 1e20, 'its modification time (99999999999999999999) cannot be given to a file here'],
      ['edited.txt', Number('1700000000.123456789'), undefined],
    ]);
    expect(readFileSync(report.changes[3]?.staged as string, 'utf8')).toBe('b');
  });

  it('malformed or forged reports are broken, whole', () => {
    const good = (rest: Buffer[]) => Buffer.concat([chg('C', 'f', 'a', { size: 2 }), frame('dat', 'ab'), frame('sum', md5('ab')), ...rest]);
    const cases: Record<string, Buffer> = {
      'more content than the size': Buffer.concat([chg('C', 'f', 'a', { size: 1 }), frame('dat', 'ab')]),
      'a checksum that does not match': Buffer.concat([chg('C', 'f', 'a', { size: 2 }), frame('dat', 'ab'), frame('sum', md5('xx')), frame('end', '1')]),
      'an end that counts wrong': good([frame('end', '5')]),
      'no end': good([]),
      'content for a deletion': Buffer.concat([chg('D', 'f', 'a', { size: 3, base: md5('x') })]),
      'a base for a creation': chg('C', 'f', 'a', { base: md5('x') }),
      'a hard link forward': chg('C', 'f', 'a', { same: 0 }),
      'a size beyond any file': chg('C', 'f', 'a', { size: Number('99999999999999999') }),
      'a path longer than its record': frame('chg', 'C f 420 1 0 - -1 99\nab'),
      'a target for a file': chg('C', 'f', 'a', { target: '/etc/passwd' }),
      'a change after the end': good([frame('end', '1'), chg('C', 'f', 'b')]),
      'an unknown op': frame('chg', 'X f 420 1 0 - -1 1\na'),
      'a hole bigger than the file': Buffer.concat([chg('C', 'f', 'a', { size: 2 }), frame('hole', '3')]),
      'content nobody asked for': good([frame('end', '1'), frame('got', '0 2'), frame('dat', 'ab'), frame('sum', md5('ab'))]),
    };
    for (const [name, bytes] of Object.entries(cases)) expect(read(bytes).report.broken, name).toBeDefined();
  });

  it('fuzz: random and mutated reports always end, broken or whole, writing only in the staging folder', () => {
    const valid = Buffer.concat([
      chg('C', 'd', 'd'),
      chg('C', 'f', 'd/x', { size: 5 }),
      frame('dat', 'abcde'),
      frame('sum', md5('abcde')),
      chg('M', 'f', 'y', { size: 1, base: md5('q') }),
      frame('dat', 'z'),
      frame('sum', md5('z')),
      chg('D', 'f', 'z', { base: md5('z') }),
      frame('end', '4'),
    ]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
          fc
            .tuple(fc.nat(valid.length - 1), fc.uint8Array({ minLength: 1, maxLength: 8 }))
            .map(([at, b]) => Buffer.concat([valid.subarray(0, at), Buffer.from(b), valid.subarray(at + b.length)])),
          fc.nat(valid.length).map((at) => valid.subarray(0, at)),
        ),
        (bytes) => {
          const dir = tempDir();
          const { report } = read(bytes, dir);
          expect(report.broken !== undefined || report.done).toBe(true);
          for (const c of report.changes) if (c.staged) expect(c.staged.startsWith(dir)).toBe(true);
          expect(readdirSync(dir).every((n) => /^\d+$/.test(n))).toBe(true);
        },
      ),
      { numRuns: 600 },
    );
    expect(read(valid).report.broken).toBeUndefined();
  });

  it('content that cannot be kept here (no staging folder) is marked, and the rest of the report still reads', () => {
    const frames = new FrameReader();
    const report = new ReportReader({ dir: () => undefined, why: () => "sparehand's folder here is a link" });
    for (const f of frames.push(
      Buffer.concat([chg('C', 'f', 'a', { size: 2 }), frame('dat', 'ab'), frame('sum', md5('ab')), chg('C', 'f', 'b'), frame('end', '2')]),
    ))
      report.take(f);
    report.finish();
    expect(report.broken).toBeUndefined();
    expect(report.changes.map((c) => c.problem)).toEqual(["sparehand's folder here is a link", "sparehand's folder here is a link"]);
  });
});
