// Reading the worker's report of what the command changed (lib/remote/worker/report.pl) from its frames, strictly: every
// field is checked, every count and size is bounded, and anything malformed makes the whole report `broken`, so
// that nothing of it is applied (and nothing loops or waits on a size that never comes); an entry that parses but
// is odd (a mode or a time this machine cannot give a file) is that change's `problem` alone. Content is written to
// a staging folder as it arrives; runs of zeros stay holes, so a sparse file stays sparse here.
import { createHash } from 'node:crypto';
import { closeSync, ftruncateSync, linkSync, copyFileSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from './frames.js';
import type { Change, ChangeOp, EntryType } from './change.js';

const MAX_CHANGES = 5_000_000;
/** The biggest file that comes back (1 TiB): every byte of it is hashed here, the holes' zeros too. */
const MAX_SIZE = 2 ** 40;
const MAX_PATH = 4096;
const ZEROS = Buffer.alloc(65536);
// A mode or mtime of any length parses: an odd one (a pre-1970 mtime, bits this machine does not know) is that
// change's problem, one line, not the loss of the report.
const HEADER = /^([CMTD]) ([fdls]) (\d{1,20}) (-?\d{1,20}(?:\.\d{1,9})?) (\d{1,16}) ([0-9a-f]{32}|-|unreadable|special) (-1|\d{1,10}) (\d{1,5})$/;
/** The permission bits a mode may carry (lib/remote/worker/report.pl sends `mode & 07777`). */
const MODE_BITS = 0o7777;
/** The times a file here can be given: what a Date holds (±8.64e15 ms). */
const MAX_SECONDS = 8.64e12;

/** Where content goes: a folder made on first use, or undefined when nothing can be kept here (then why). */
export interface Staging {
  dir: () => string | undefined;
  /** Why there is no staging folder. */
  why?: () => string;
}

interface Receiving {
  change: Change;
  /** A `sum` frame follows the content (always after `got`; after a change's content when it had any). */
  withSum: boolean;
  fd: number | undefined;
  left: number;
  at: number;
  md5: ReturnType<typeof createHash>;
}

export class ReportReader {
  readonly changes: Change[] = [];
  /** Why the report cannot be trusted (then nothing of it is applied). */
  broken: string | undefined;
  done = false;
  private receiving: Receiving | undefined;
  private expectSum: Change | undefined;
  private nextGot: number | undefined;

  constructor(private readonly staging: Staging) {}

  /** Takes one frame of the report (chg, dat, hole, sum, end, got); false when it is not one. */
  take(f: Frame): boolean {
    if (!['chg', 'dat', 'hole', 'sum', 'end', 'got'].includes(f.type)) return false;
    if (this.broken) return true;
    try {
      this.frame(f);
    } catch (e) {
      this.fail(e instanceof ReportError ? e.message : `it could not be read (${(e as Error).message})`);
    }
    return true;
  }

  /** Whether a hole of `n` bytes fits the content being received (a hole that does not is refused before any work). */
  holeFits(n: number): boolean {
    return this.receiving !== undefined && n > 0 && n <= this.receiving.left;
  }

  /** The input ended: a report that did not end is broken. */
  finish(): void {
    if (!this.done && !this.broken) this.fail('it ended before its last change');
    this.closeReceiving();
  }

  private fail(why: string): void {
    this.broken = why;
    this.closeReceiving();
  }

  private frame(f: Frame): void {
    const text = () => f.payload.toString('latin1');
    if (this.receiving) {
      if (f.type === 'dat') return this.data(f.payload);
      if (f.type === 'hole') return this.hole(text());
      throw new ReportError(`a ${f.type} frame in the middle of a file's content`);
    }
    if (this.expectSum) {
      if (f.type !== 'sum') throw new ReportError(`a ${f.type} frame where a checksum belongs`);
      return this.sum(this.expectSum, text());
    }
    if (f.type === 'got') return this.got(text());
    if (this.done) throw new ReportError(`a ${f.type} frame after the end`);
    if (f.type === 'chg') return this.change(f.payload);
    if (f.type === 'end') {
      if (text() !== String(this.changes.length)) throw new ReportError(`its end counts ${text().slice(0, 20)} changes, not ${this.changes.length}`);
      this.done = true;
      return;
    }
    throw new ReportError(`a ${f.type} frame outside a file's content`);
  }

  private change(payload: Buffer): void {
    if (this.changes.length >= MAX_CHANGES) throw new ReportError(`more than ${MAX_CHANGES} changes`);
    const nl = payload.indexOf(10);
    const m = nl > 0 ? HEADER.exec(payload.subarray(0, nl).toString('latin1')) : null;
    if (!m) throw new ReportError('a change record that is not one');
    const [, op, type, mode, mtime, size, base, same, pathLength] = m as unknown as [
      string,
      ChangeOp,
      EntryType,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const names = payload.subarray(nl + 1);
    const pathLen = Number(pathLength);
    if (pathLen === 0 || pathLen > MAX_PATH || pathLen > names.length) throw new ReportError('a change with a bad path length');
    const pathBytes = names.subarray(0, pathLen);
    const targetBytes = names.subarray(pathLen);
    const sizeN = Number(size);
    const sameN = Number(same);
    const index = this.changes.length;
    const c: Change = {
      index,
      op,
      type,
      mode: Number(mode),
      mtime: Number(mtime),
      size: sizeN,
      base: base === '-' ? undefined : base,
      hash: undefined,
      path: pathBytes.toString('utf8'),
      target: targetBytes.toString('utf8'),
    };
    if (!Number.isSafeInteger(sizeN)) throw new ReportError('a change with a bad size');
    if (sizeN > MAX_SIZE) throw new ReportError(`a file of ${sizeN} bytes (at most ${MAX_SIZE})`);
    if (sizeN > 0 && (type !== 'f' || (op !== 'C' && op !== 'M') || sameN >= 0)) throw new ReportError('content for a change that has none');
    if (sameN >= index) throw new ReportError('a hard link to a later change');
    if ((op === 'C' || type === 'd') !== (c.base === undefined)) throw new ReportError('a change whose base does not fit its kind');
    if (targetBytes.length > 0 && type !== 'l') throw new ReportError('a link target for something that is not a link');
    if (!Buffer.from(c.path).equals(pathBytes) || !Buffer.from(c.target).equals(targetBytes)) c.problem = 'its name is not UTF-8';
    else if (!(c.mode <= MODE_BITS))
      c.problem = `its mode (${Number.isSafeInteger(c.mode) ? `0${c.mode.toString(8)}` : `${mode.slice(0, 12)}…`}) is not one this machine knows`;
    else if (!(Math.abs(c.mtime) <= MAX_SECONDS)) c.problem = `its modification time (${mtime.slice(0, 24)}) cannot be given to a file here`;
    this.changes.push(c);
    if (type === 'l') c.hash = createHash('md5').update(targetBytes).digest('hex');
    if (type !== 'f' || op === 'D') return;
    if (op === 'T') {
      c.hash = c.base;
      return;
    }
    const twin = sameN >= 0 ? this.changes[sameN] : undefined;
    if (twin) {
      if (twin.type !== 'f' || twin.op === 'D' || twin.op === 'T') throw new ReportError('a hard link to something that is not a file sent');
      c.hash = twin.hash;
      c.size = twin.size;
      if (twin.problem) c.problem = twin.problem;
      else if (twin.staged) this.linkTwin(c, twin.staged);
      return;
    }
    this.startContent(c, sizeN, sizeN > 0);
  }

  /** `got INDEX SIZE`: the content of a change sparehand asked for (`want`) follows. */
  private got(text: string): void {
    const m = /^(\d{1,10}) (\d{1,16})$/.exec(text);
    const c = m ? this.changes[Number(m[1])] : undefined;
    if (!m || !c || c.type !== 'f' || c.staged !== undefined || this.nextGot === Number(m[1])) throw new ReportError('content nobody asked for');
    this.nextGot = Number(m[1]);
    const size = Number(m[2]);
    if (!Number.isSafeInteger(size) || size > MAX_SIZE) throw new ReportError('a bad size');
    c.size = size;
    this.startContent(c, size, true);
  }

  private startContent(c: Change, size: number, withSum: boolean): void {
    const dir = this.staging.dir();
    let fd: number | undefined;
    if (dir === undefined) c.problem = this.staging.why?.() ?? 'its content could not be kept here';
    else {
      c.staged = join(dir, String(c.index));
      try {
        fd = openSync(c.staged, 'wx', 0o600);
      } catch (e) {
        this.unstage(c, e);
      }
    }
    this.receiving = { change: c, withSum, fd, left: size, at: 0, md5: createHash('md5') };
    if (size === 0) this.endContent();
  }

  private data(piece: Buffer): void {
    const r = this.receiving as Receiving;
    if (piece.length > r.left) throw new ReportError('more content than its size');
    r.md5.update(piece);
    if (r.fd !== undefined) {
      try {
        writeSync(r.fd, piece, 0, piece.length, r.at);
      } catch (e) {
        this.unstage(r.change, e, r);
      }
    }
    r.at += piece.length;
    r.left -= piece.length;
    if (r.left === 0) this.endContent();
  }

  private hole(text: string): void {
    const r = this.receiving as Receiving;
    if (!/^\d{1,16}$/.test(text) || Number(text) === 0 || Number(text) > r.left) throw new ReportError('a hole that does not fit the file');
    let n = Number(text);
    r.at += n;
    r.left -= n;
    while (n > 0) {
      const k = Math.min(n, ZEROS.length);
      r.md5.update(ZEROS.subarray(0, k));
      n -= k;
    }
    if (r.left === 0) this.endContent();
  }

  private endContent(): void {
    const r = this.receiving as Receiving;
    if (r.fd !== undefined) {
      try {
        ftruncateSync(r.fd, r.at);
      } catch (e) {
        this.unstage(r.change, e, r);
      }
    }
    this.closeReceiving();
    r.change.hash = r.md5.digest('hex');
    if (r.withSum) this.expectSum = r.change;
  }

  private sum(c: Change, text: string): void {
    this.expectSum = undefined;
    if (text === 'short') c.problem ??= 'it changed on the worker while it was being sent';
    else if (text !== c.hash) throw new ReportError('content whose checksum does not match');
  }

  /** The content cannot be kept here (no space, no permission): the change says so; its bytes are still read. */
  private unstage(c: Change, e: unknown, r?: Receiving): void {
    const code = (e as NodeJS.ErrnoException).code;
    c.problem = `it could not be kept here to be applied (${code === 'ENOSPC' ? 'no space left on this disk' : (code ?? String(e))})`;
    if (r?.fd !== undefined) closeSync(r.fd);
    if (r) r.fd = undefined;
    if (c.staged) rmSync(c.staged, { force: true });
    delete c.staged;
  }

  private linkTwin(c: Change, twin: string): void {
    const dir = this.staging.dir();
    if (dir === undefined) return;
    c.staged = join(dir, String(c.index));
    try {
      linkSync(twin, c.staged);
    } catch {
      try {
        copyFileSync(twin, c.staged);
      } catch (e) {
        this.unstage(c, e);
      }
    }
  }

  private closeReceiving(): void {
    const r = this.receiving;
    this.receiving = undefined;
    if (r?.fd !== undefined) {
      closeSync(r.fd);
      r.fd = undefined;
    }
  }
}

class ReportError extends Error {}
