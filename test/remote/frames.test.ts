// The frame reader: what the worker sends is read strictly; anything that is not frames stops the reading.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader, MAX_PAYLOAD, fields, frame, seal, sessionKey } from '../../lib/remote/frames.js';

describe('frames', () => {
  it('reads frames split anywhere across chunks, payloads byte for byte', () => {
    const bytes = Buffer.concat([frame('out', 'hello\n'), frame('ran', '0 '), frame('dat', Buffer.from([0, 10, 255, 13]))]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const r = new FrameReader();
      const got = [...r.push(bytes.subarray(0, cut)), ...r.push(bytes.subarray(cut))];
      expect(got.map((f) => [f.type, [...f.payload]])).toEqual([
        ['out', [...Buffer.from('hello\n')]],
        ['ran', [...Buffer.from('0 ')]],
        ['dat', [0, 10, 255, 13]],
      ]);
      expect(r.broken).toBeUndefined();
      expect(r.leftover).toBe(0);
    }
  });

  it('bytes that are not a frame break the reading, and nothing after them is read', () => {
    for (const bad of ['hello world\n', 'out -1\n', 'OUT 3\nabc', 'out 3x\nabc', `${'x'.repeat(50)}`, 'out 1 2\na', '\0sparehand-results 1 ran 0\n']) {
      const r = new FrameReader();
      expect(r.push(Buffer.concat([Buffer.from(bad), frame('ran', '0')]))).toEqual([]);
      expect(r.broken, bad).toBeDefined();
      expect(r.push(frame('ran', '0'))).toEqual([]);
    }
  });

  it('a frame bigger than the limit is refused without waiting for its bytes', () => {
    const r = new FrameReader();
    expect(r.push(Buffer.from(`dat ${MAX_PAYLOAD + 1}\n`))).toEqual([]);
    expect(r.broken).toMatch(/at most/);
  });

  it("with the session's key, only frames sealed with it, each with its own number, are read", () => {
    const key = sessionKey();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const sealed = (k: string, seq: number, type: string, payload: string) =>
      Buffer.concat([Buffer.from(`${type} ${payload.length} ${seal(k, seq, type, Buffer.from(payload)).slice(0, 32)}\n`), Buffer.from(payload)]);
    const good = Buffer.concat([sealed(key, 0, 'out', 'hello\n'), sealed(key, 1, 'ran', '3 ')]);
    const r = new FrameReader(key);
    expect(r.push(good).map((f) => [f.type, f.payload.toString()])).toEqual([
      ['out', 'hello\n'],
      ['ran', '3 '],
    ]);
    expect(r.broken).toBeUndefined();
    const forged = {
      unsealed: frame('ran', '0 '),
      'another key': sealed(sessionKey(), 2, 'ran', '0 '),
      'a frame sent again': sealed(key, 1, 'ran', '3 '),
      'a number skipped': sealed(key, 3, 'ran', '0 '),
      'a payload changed': Buffer.from(sealed(key, 2, 'ran', '3 ').toString().replace(/3 $/, '0 ')),
    };
    for (const [what, bytes] of Object.entries(forged)) {
      const reader = new FrameReader(key);
      expect(reader.push(good)).toHaveLength(2);
      expect(reader.push(Buffer.concat([bytes, sealed(key, 2, 'end', '0')])), what).toEqual([]);
      expect(reader.broken, what).toMatch(/^a frame the worker program did not send/);
    }
    // Without a key (a test's own worker), a sealed frame is not one.
    expect(new FrameReader().push(good)).toEqual([]);
  });

  it('fields are NUL-separated names and values', () => {
    expect(
      fields([
        ['a', 'x y'],
        ['env', 'K=V'],
      ]).toString(),
    ).toBe('a\0x y\0env\0K=V\0');
  });

  it('fuzz: any bytes end in frames or broken, never a throw, and never more than they hold', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }), (chunks) => {
        const r = new FrameReader();
        let payloadBytes = 0;
        for (const c of chunks) for (const f of r.push(Buffer.from(c))) payloadBytes += f.payload.length;
        expect(payloadBytes).toBeLessThanOrEqual(chunks.reduce((n, c) => n + c.length, 0));
      }),
      { numRuns: 2000 },
    );
  });
});
