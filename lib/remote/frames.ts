// Frames: how a run and its worker program talk, both ways, after the bootstrap. `TYPE LENGTH\n` then LENGTH
// bytes. Everything the worker sends is framed, the command's stdout included (`out`), so the command cannot
// print anything that passes for results or an exit status; and the reader here is strict: any byte that is not
// a well-formed frame ends the session's reading as `broken`, with nothing applied (docs/run.md).
//
// The worker program's frames are sealed: `TYPE LENGTH SEAL\n`, SEAL the first 32 hex digits of HMAC-MD5 under the
// session's key (random, sent first on the session's input: lib/remote/worker/program.ts) of the frame's number in
// the session, its type and its payload. A process on the worker that got hold of the session's output without
// the key (a leftover of an earlier run) cannot write a frame that is taken, nor replay or reorder one.
//
// Which types there are, who sends each and how big it may be: the protocol's table, protocol.ts.
import { createHmac, randomBytes } from 'node:crypto';
import { type Frame, type FrameType, MAX_PAYLOAD } from './protocol.js';

export { type Frame, MAX_PAYLOAD };

const MAX_HEADER = 80;

/** One frame's bytes (only a type the protocol has: protocol.ts). */
export function frame(type: FrameType, payload: string | Buffer = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from(`${type} ${body.length}\n`), body]);
}

/** A session's key: 64 hex digits (the worker program uses them as they are, as the key's bytes). */
export function sessionKey(): string {
  return randomBytes(32).toString('hex');
}

/** The seal of the `seq`th frame (from 0) under `key`. */
export function seal(key: string, seq: number, type: string, payload: Buffer): string {
  return createHmac('md5', Buffer.from(key, 'latin1')).update(`${seq}\0${type}\0`).update(payload).digest('hex');
}

/** NUL-separated names and values (the job), a name given once per value. */
export function fields(entries: ReadonlyArray<readonly [string, string]>): Buffer {
  return Buffer.from(entries.map(([k, v]) => `${k}\0${v}\0`).join(''));
}

/**
 * A push reader of frames. `push()` returns the whole frames the bytes completed; after a malformed one, `broken`.
 * With `key`, every frame must carry its seal (a frame without one, or with another, breaks the reading).
 */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  private seq = 0;
  /** Why the input is not frames (then nothing more is read). */
  broken: string | undefined;

  constructor(private readonly key?: string) {}

  push(chunk: Buffer): Frame[] {
    if (this.broken !== undefined) return [];
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: Frame[] = [];
    for (;;) {
      const nl = data.indexOf(10);
      if (nl < 0 || nl > MAX_HEADER) {
        if (nl > MAX_HEADER || (nl < 0 && data.length > MAX_HEADER)) this.broken = 'a frame header that is not one';
        break;
      }
      const m = /^([a-z]{1,16}) (\d{1,10})(?: ([0-9a-f]{32}))?$/.exec(data.subarray(0, nl).toString('latin1'));
      if (!m || (this.key === undefined && m[3] !== undefined)) {
        this.broken = 'a frame header that is not one';
        break;
      }
      if (this.key !== undefined && m[3] === undefined) {
        this.broken = 'a frame the worker program did not send (it has no seal)';
        break;
      }
      const length = Number(m[2]);
      if (length > MAX_PAYLOAD) {
        this.broken = `a frame of ${length} bytes (at most ${MAX_PAYLOAD})`;
        break;
      }
      if (data.length < nl + 1 + length) break;
      const f = { type: m[1] as string, payload: Buffer.from(data.subarray(nl + 1, nl + 1 + length)) };
      if (this.key !== undefined && seal(this.key, this.seq++, f.type, f.payload).slice(0, 32) !== m[3]) {
        this.broken = 'a frame the worker program did not send (its seal does not match)';
        break;
      }
      out.push(f);
      data = data.subarray(nl + 1 + length);
    }
    this.pending = this.broken === undefined ? Buffer.from(data) : Buffer.alloc(0);
    return out;
  }

  /** Bytes of an unfinished frame (the input ended in the middle of one when this is not 0). */
  get leftover(): number {
    return this.pending.length;
  }
}
