import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RootRewriter, rootRewriteStream, rootsOf } from '../../lib/remote/root-rewrite.js';

const THERE = '/home/w/.sparehand/work/proj-0123456789ab/0';
const HERE = '/Users/me/code/proj';

/** `input` through a rewriter, in pieces cut at `cuts`. */
function through(input: Buffer | string, cuts: number[] = [], roots = [THERE], here = HERE): string {
  const rw = new RootRewriter(here);
  rw.setRoots(roots);
  const buf = Buffer.from(input);
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, buf.length]) {
    out.push(rw.push(buf.subarray(at, c)));
    at = c;
  }
  out.push(rw.flush());
  return Buffer.concat(out).toString('latin1');
}

describe('the worker root shown as the root here', () => {
  it('rewrites a bare path, a path in a longer one, and file:// URLs; nothing else changes', () => {
    expect(through(`${THERE}\n`)).toBe(`${HERE}\n`);
    expect(through(`rootdir: ${THERE}, configfile: x`)).toBe(`rootdir: ${HERE}, configfile: x`);
    expect(through(`   Compiling demo v0.1.0 (${THERE})\n`)).toBe(`   Compiling demo v0.1.0 (${HERE})\n`);
    expect(through(`at file://${THERE}/tests/a.test.js:3:7`)).toBe(`at file://${HERE}/tests/a.test.js:3:7`);
    expect(through(`${THERE}/src/a.ts:1:2 error`)).toBe(`${HERE}/src/a.ts:1:2 error`);
    expect(through(`'${THERE}' "${THERE}"`)).toBe(`'${HERE}' "${HERE}"`);
    expect(through('no path here /home/w/.sparehand/work/other/0\n')).toBe('no path here /home/w/.sparehand/work/other/0\n');
  });

  it('percent-encodes the root here in a file:// URL, and finds the worker root percent-encoded', () => {
    const spaced = '/Users/me/my code/proj';
    expect(through(`file://${THERE}/a.js ${THERE}/a.js`, [], [THERE], spaced)).toBe(`file:///Users/me/my%20code/proj/a.js ${spaced}/a.js`);
    const there = '/srv/a b/proj-0123456789ab/0';
    expect(through('file:///srv/a%20b/proj-0123456789ab/0/x.js', [], [there])).toBe(`file://${HERE}/x.js`);
  });

  it('needs a boundary after the root: a longer name that merely starts with it is left alone', () => {
    const rw = (s: string) => through(s, [], ['/w/0'], '/here');
    expect(rw('/w/0')).toBe('/here');
    expect(rw('/w/01 /w/0.bak /w/0_x /w/0-1 /w/0~')).toBe('/w/01 /w/0.bak /w/0_x /w/0-1 /w/0~');
    expect(rw('/w/0/a /w/0: /w/0) /w/0\n')).toBe('/here/a /here: /here) /here\n');
    // …and before it: a path that only ends with the root is another one.
    expect(rw('/x/w/0 a/w/0 ./w/0 (/w/0')).toBe('/x/w/0 a/w/0 ./w/0 (/here');
  });

  it('finds a root split across two chunks, at every split point, and across three', () => {
    const text = `x file://${THERE}/a.js\n${THERE}\n[${THERE}]`;
    const want = `x file://${HERE}/a.js\n${HERE}\n[${HERE}]`;
    for (let i = 0; i <= text.length; i++) expect(through(text, [i]), `split at ${i}`).toBe(want);
    for (let i = 0; i <= text.length; i += 7) for (let j = i; j <= text.length; j += 5) expect(through(text, [i, j])).toBe(want);
    // One byte at a time.
    expect(
      through(
        text,
        Array.from({ length: text.length }, (_, i) => i),
      ),
    ).toBe(want);
  });

  it('holds back only what may still become a match, and the boundary byte decides in the next chunk', () => {
    const rw = new RootRewriter('/here');
    rw.setRoots(['/w/0']);
    expect(rw.push(Buffer.from('abc /w')).toString()).toBe('abc ');
    expect(rw.push(Buffer.from('/0')).toString()).toBe('');
    expect(rw.push(Buffer.from('1 and /w/0')).toString()).toBe('/w/01 and ');
    expect(rw.push(Buffer.from('/x')).toString()).toBe('/here/x');
    expect(rw.push(Buffer.from(' /w/0')).toString()).toBe(' ');
    expect(rw.flush().toString()).toBe('/here');
    expect(rw.flush().toString()).toBe('');
  });

  it('gives the same bytes however the stream is cut (random texts of root pieces, slashes, colour codes, URLs)', () => {
    let x = 7;
    const next = (n: number) => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return (x >>> 8) % n;
    };
    const bits = [THERE, THERE.slice(0, 9), THERE.slice(9), '/', 'file://', '\x1b[31m', '\x1b[0m', 'a', '1', '.', ' ', '\n', ':', '0', '/0'];
    for (let t = 0; t < 300; t++) {
      const text = Array.from({ length: 1 + next(12) }, () => bits[next(bits.length)]).join('');
      const whole = through(text);
      const cuts = [...new Set(Array.from({ length: next(4) }, () => next(text.length + 1)))].sort((a, b) => a - b);
      expect(through(text, cuts), JSON.stringify({ text, cuts })).toBe(whole);
    }
  });

  it('rewrites inside ANSI colour codes and keeps the codes', () => {
    const text = `\x1b[1m\x1b[31m${THERE}\x1b[0m/src \x1b[2m(${THERE}/a.ts)\x1b[22m\x1b]8;;file://${THERE}/a.ts\x1b\\link\x1b]8;;\x1b\\`;
    const want = `\x1b[1m\x1b[31m${HERE}\x1b[0m/src \x1b[2m(${HERE}/a.ts)\x1b[22m\x1b]8;;file://${HERE}/a.ts\x1b\\link\x1b]8;;\x1b\\`;
    for (let i = 0; i <= text.length; i += 3) expect(through(text, [i])).toBe(want);
  });

  it('passes binary output through byte for byte, but for exact matches', () => {
    const bytes = Buffer.alloc(70_000);
    let x = 12345;
    for (let i = 0; i < bytes.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      bytes[i] = x >>> 24;
    }
    // Pieces of the root, and '/' bytes all over: none is a whole root, nothing changes.
    for (let i = 0; i < bytes.length; i += 997) Buffer.from(THERE.slice(0, 20)).copy(bytes, i);
    expect(through(bytes, [1000, 33_333, 65_536])).toBe(bytes.toString('latin1'));
    const withRoot = Buffer.concat([bytes.subarray(0, 500), Buffer.from(`\0${THERE}\0`), bytes.subarray(500)]);
    const want = Buffer.concat([bytes.subarray(0, 500), Buffer.from(`\0${HERE}\0`), bytes.subarray(500)]);
    expect(through(withRoot, [510])).toBe(want.toString('latin1'));
  });

  it('changes nothing before the roots are known', () => {
    const rw = new RootRewriter(HERE);
    expect(rw.push(Buffer.from(`${THERE} /`)).toString()).toBe(`${THERE} /`);
    expect(rw.flush().toString()).toBe('');
  });

  it('as a stream: held bytes come out at the end, and after a quiet moment (a terminal waiting for input)', async () => {
    const rw = new RootRewriter('/here');
    rw.setRoots(['/w/0']);
    const s = rootRewriteStream(rw, 20);
    const got: string[] = [];
    s.on('data', (d: Buffer) => got.push(d.toString()));
    s.write(Buffer.from('prompt /w'));
    await new Promise((r) => setTimeout(r, 80));
    expect(got.join('')).toBe('prompt /w');
    s.write(Buffer.from('/0 /w/0'));
    s.end();
    await new Promise((r) => s.on('end', r));
    expect(got.join('')).toBe('prompt /w/0 /here');
    const all = await Readable.from([Buffer.from('a /w/'), Buffer.from('0/b')])
      .pipe(rootRewriteStream(rw))
      .toArray();
    expect(Buffer.concat(all).toString()).toBe('a /here/b');
  });
});

describe("the worker's root frame", () => {
  const key = 'proj-0123456789ab';
  it('names up to two absolute roots of this copy', () => {
    expect(rootsOf(Buffer.from(THERE), key, 0)).toEqual([THERE]);
    expect(rootsOf(Buffer.from(`${THERE}\n/home/link/.sparehand/work/${key}/0`), key, 0)).toEqual([THERE, `/home/link/.sparehand/work/${key}/0`]);
    expect(rootsOf(Buffer.from(`${THERE}\n${THERE}`), key, 0)).toEqual([THERE]);
  });

  it('names none when it is anything else: another copy, a short string, relative, dots, controls, three lines', () => {
    for (const bad of [
      `/home/w/.sparehand/work/${key}/1`,
      '/',
      'e',
      `${key}/0`,
      `/${key}/0`,
      `home/w/${key}/0`,
      `/home/../${key}/0`,
      `/home//w/${key}/0`,
      `/home/\x1b[31m/${key}/0`,
      `/a/${key}/0\n/b/${key}/0\n/c/${key}/0`,
      `/${'a'.repeat(5000)}/${key}/0`,
    ])
      expect(rootsOf(Buffer.from(bad), key, 0), bad).toEqual([]);
    expect(rootsOf(Buffer.from(`/a/${key}/0\n/b/../${key}/0`), key, 0)).toEqual([`/a/${key}/0`]);
    expect(rootsOf(Buffer.from([0x2f, 0xff, 0x2f, ...Buffer.from(`${key}/0`)]), key, 0)).toEqual([]);
  });
});
