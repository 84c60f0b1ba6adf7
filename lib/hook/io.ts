// The hook's input and its log: stdin read with a size cap and a time limit, errors appended to a bounded log.
import { appendFileSync, closeSync, constants, fstatSync, openSync, readSync, statSync, truncateSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from '../context.js';
import { hookLogPath } from '../paths.js';
import { writableDir } from '../sandbox/own-dirs.js';

export const MAX_PAYLOAD = 1024 * 1024;
const MAX_LOG = 256 * 1024;

/**
 * The payload on stdin: read until it holds one whole JSON document (a tool may keep its end of the pipe open) or
 * ends; null when it is over the cap, does not come within `ms`, or stdin is a terminal (no tool is writing).
 */
export function readPayload(ctx: Pick<Context, 'stdin' | 'fds'>, ms = 5000): Promise<string | null> {
  if (!ctx.fds) return readStream(ctx.stdin, ms, '');
  const fd = ctx.fds.stdin;
  const st = fstatSync(fd);
  // A terminal (a character device; so is /dev/null, which holds nothing either). node:tty's isatty costs more to
  // load than this whole read.
  if (st.isCharacterDevice()) return Promise.resolve(null);
  const own = st.isFIFO() ? nonBlocking(fd) : undefined;
  if (own !== undefined) return readFd(own, ms);
  // A socket (Node starts hooks with socket pairs) or a file: the first read waits for the payload, which a tool
  // writes as it starts the hook, and most often holds all of it. The rest, if any, comes through a stream, which
  // can be given up on (it costs more to set up than the rest of the hook, so only then).
  const buf = Buffer.allocUnsafe(65536);
  let n: number;
  try {
    n = readSync(fd, buf, 0, buf.length, null);
  } catch {
    return readStream(ctx.stdin, ms, '');
  }
  const text = buf.toString('utf8', 0, n);
  return n === 0 || whole(text) ? Promise.resolve(text) : readStream(ctx.stdin, ms, text);
}

/**
 * A non-blocking descriptor of our own for what `fd` reads (Linux: a new open of /proc/self/fd/N), so that a writer
 * that stalls can be given up on: a blocking read, even on libuv's thread pool, holds up the process's exit until
 * it returns. Undefined elsewhere (a socket, another system): the caller reads a stream instead.
 */
function nonBlocking(fd: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/** Whether `text` is already one whole JSON value (an object or a list: what a payload is). */
function whole(text: string): boolean {
  const last = text.trimEnd().at(-1);
  if (last !== '}' && last !== ']') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a non-blocking descriptor (no stream: creating process.stdin costs more than the rest of the hook). What is
 * already there is read at once; while nothing is, it looks again every few milliseconds until `ms` have passed.
 */
function readFd(fd: number, ms: number): Promise<string | null> {
  const deadline = Date.now() + ms;
  const chunks: Buffer[] = [];
  let size = 0;
  const buf = Buffer.allocUnsafe(65536);
  return new Promise((resolve) => {
    const finish = (v: string | null) => {
      closeSync(fd);
      resolve(v);
    };
    const step = (): void => {
      for (;;) {
        let n: number;
        try {
          n = readSync(fd, buf, 0, buf.length, null);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return finish(null);
          if (Date.now() >= deadline) return finish(null);
          setTimeout(step, 5);
          return;
        }
        if (n === 0) return finish(Buffer.concat(chunks).toString('utf8'));
        size += n;
        if (size > MAX_PAYLOAD) return finish(null);
        chunks.push(Buffer.from(buf.subarray(0, n)));
        const text = Buffer.concat(chunks).toString('utf8');
        if (whole(text)) return finish(text);
      }
    };
    step();
  });
}

/** Writes the answer: straight to the descriptor for the real process, else to the stream. */
export function writeOut(ctx: Pick<Context, 'fds' | 'stdout' | 'stderr'>, stream: 'stdout' | 'stderr', text: string): void {
  if (!text) return;
  if (ctx.fds) writeSync(ctx.fds[stream], text);
  else ctx[stream].write(text);
}

function readStream(stdin: Readable, ms: number, start: string): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [Buffer.from(start)];
    let size = chunks[0]!.length;
    const finish = (v: string | null) => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.removeAllListeners('end');
      stdin.removeAllListeners('error');
      stdin.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => finish(null), ms);
    stdin.on('data', (d: Buffer | string) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d;
      size += b.length;
      if (size > MAX_PAYLOAD) return finish(null);
      chunks.push(b);
      const text = Buffer.concat(chunks).toString('utf8');
      if (whole(text)) finish(text);
    });
    stdin.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
    stdin.on('error', () => finish(null));
  });
}

/** One line in the hook log; never throws (the hook must not fail because its log cannot be written). */
export function logLine(ctx: Pick<Context, 'home' | 'env'>, message: string): void {
  try {
    // Where the state folder is read-only (a hook run inside a sandbox), the temp folder it leaves writable.
    const usual = hookLogPath(ctx);
    const dir = writableDir(ctx, dirname(usual), 'state');
    if (dir === undefined) return;
    const path = join(dir, basename(usual));
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
