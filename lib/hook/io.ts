// The hook's input and its log: stdin read with a size cap and a time limit, errors appended to a bounded log.
import { appendFileSync, mkdirSync, readSync, statSync, truncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from '../context.js';
import { hookLogPath } from '../paths.js';

export const MAX_PAYLOAD = 1024 * 1024;
const MAX_LOG = 256 * 1024;

/** The whole of stdin, or null when it is over the cap (or, read as a stream, does not end within `ms`). */
export function readPayload(ctx: Pick<Context, 'stdin' | 'fds'>, ms = 5000): Promise<string | null> {
  if (ctx.fds) {
    const text = readFd(ctx.fds.stdin);
    if (text !== undefined) return Promise.resolve(text);
  }
  return readStream(ctx.stdin, ms);
}

/** Reads a descriptor to its end synchronously; undefined when it would block (non-blocking stdin). */
function readFd(fd: number): string | null | undefined {
  const chunks: Buffer[] = [];
  let size = 0;
  const buf = Buffer.allocUnsafe(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && size === 0) return undefined;
      if (code === 'EOF') break;
      return null;
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_PAYLOAD) return null;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes the answer: straight to the descriptor for the real process, else to the stream. */
export function writeOut(ctx: Pick<Context, 'fds' | 'stdout' | 'stderr'>, stream: 'stdout' | 'stderr', text: string): void {
  if (!text) return;
  if (ctx.fds) writeSync(ctx.fds[stream], text);
  else ctx[stream].write(text);
}

function readStream(stdin: Readable, ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (v: string | null) => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.removeAllListeners('error');
      if (v === null) stdin.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => finish(null), ms);
    stdin.on('data', (d: Buffer | string) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d;
      size += b.length;
      if (size > MAX_PAYLOAD) return finish(null);
      chunks.push(b);
    });
    stdin.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    stdin.on('error', () => finish(null));
  });
}

/** One line in the hook log; never throws (the hook must not fail because its log cannot be written). */
export function logLine(ctx: Pick<Context, 'home' | 'env'>, message: string): void {
  try {
    const path = hookLogPath(ctx);
    mkdirSync(dirname(path), { recursive: true });
    try {
      if (statSync(path).size > MAX_LOG) truncateSync(path, 0);
    } catch {
      // no log yet
    }
    appendFileSync(path, `${new Date().toISOString()} ${message.replace(/\s+/g, ' ').slice(0, 2000)}\n`);
  } catch {
    // nowhere to log: stay silent
  }
}
