// The hook's input and its log: stdin read with a size cap and a time limit, errors appended to a bounded log.
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from '../context.js';
import { hookLogPath } from '../paths.js';
import { writableDir } from '../state/own-dirs.js';
import { appendOwnFile } from '../state/own-file.js';

export const MAX_PAYLOAD = 1024 * 1024;
const MAX_LOG = 256 * 1024;

/**
 * The payload on stdin: exactly one JSON document, read until it is whole (a tool may keep its end of the pipe open, and
 * what follows the document is not waited for) or stdin ends; null when it is over the cap, does not come within `ms`
 * (nothing written and the pipe kept open included), or stdin is a terminal (no tool is writing).
 */
export function readPayload(ctx: Pick<Context, 'stdin' | 'fds'>, ms = 5000): Promise<string | null> {
  if (!ctx.fds) return readStream(ctx.stdin, ms, '');
  const fd = ctx.fds.stdin;
  const st = fstatSync(fd);
  // A terminal (a character device; so is /dev/null, which holds nothing either). node:tty's isatty costs more to
  // load than this whole read.
  if (st.isCharacterDevice()) return Promise.resolve(null);
  if (st.isFIFO()) {
    const own = nonBlocking(fd);
    if (own !== undefined) return readFd(own, ms, () => closeSync(own));
  }
  if (st.isSocket()) {
    // Node starts hooks with socket pairs: a blocking read there waits for as long as the tool writes nothing.
    const socket = nonBlockingSocket(fd);
    if (socket !== undefined) return readFd(fd, ms, socket.close);
  }
  if (!st.isFile()) return readStream(ctx.stdin, ms, '');
  // A file: the first read holds all of it, most often. The rest, if any, comes through a stream (it costs more to set
  // up than the rest of the hook, so only then).
  const buf = Buffer.allocUnsafe(65536);
  let n: number;
  try {
    n = readSync(fd, buf, 0, buf.length, null);
  } catch {
    return readStream(ctx.stdin, ms, '');
  }
  const text = buf.toString('utf8', 0, n);
  const first = firstDocument(text);
  return n === 0 || first !== undefined ? Promise.resolve(first ?? text) : readStream(ctx.stdin, ms, text);
}

/**
 * A non-blocking descriptor of our own for what `fd` reads (Linux: a new open of /proc/self/fd/N), so that a writer
 * that stalls can be given up on: a blocking read, even on libuv's thread pool, holds up the process's exit until
 * it returns. Undefined elsewhere (a socket, another system): the caller reads another way.
 */
function nonBlocking(fd: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

interface PipeBinding {
  Pipe: new (type: number) => { open(fd: number): number; close(): void };
  constants: { SOCKET: number };
}

/**
 * A socket `fd` made non-blocking by libuv (its pipe handle, as process.stdin would open it, without loading the net
 * and stream modules that cost more than the rest of the hook), so that reading it can be given up on; `close` lets
 * go of the handle (libuv never closes a descriptor of stdio). Undefined where Node does not offer the handle.
 */
function nonBlockingSocket(fd: number): { close: () => void } | undefined {
  const quiet = process.noDeprecation;
  try {
    // process.binding is deprecated in the documentation only: it says so on stderr under --pending-deprecation.
    process.noDeprecation = true;
    const { Pipe, constants: c } = (process as unknown as { binding(name: string): PipeBinding }).binding('pipe_wrap');
    const pipe = new Pipe(c.SOCKET);
    if (pipe.open(fd) !== 0) {
      pipe.close();
      return undefined;
    }
    return { close: () => pipe.close() };
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}

/**
 * The first JSON document of `text` (an object or a list: what a payload is) once it is whole, or what does not start
 * as one (it is junk however long it grows); undefined while the document is still coming. What follows is left out.
 */
export function firstDocument(text: string): string | undefined {
  let i = 0;
  while (i < text.length && /\s|\uFEFF/.test(text[i]!)) i++;
  if (i === text.length) return undefined;
  if (text[i] !== '{' && text[i] !== '[') return text;
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if ((ch === '}' || ch === ']') && --depth === 0) return text.slice(0, i + 1);
  }
  return undefined;
}

/**
 * Reads a non-blocking descriptor (no stream: creating process.stdin costs more than the rest of the hook). What is
 * already there is read at once; while nothing is, it looks again every few milliseconds until `ms` have passed.
 * `done` lets go of the descriptor.
 */
function readFd(fd: number, ms: number, done: () => void): Promise<string | null> {
  const deadline = Date.now() + ms;
  const chunks: Buffer[] = [];
  let size = 0;
  const buf = Buffer.allocUnsafe(65536);
  return new Promise((resolve) => {
    const finish = (v: string | null) => {
      done();
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
        if (n === 0) {
          const text = Buffer.concat(chunks).toString('utf8');
          return finish(firstDocument(text) ?? text);
        }
        size += n;
        if (size > MAX_PAYLOAD) return finish(null);
        chunks.push(Buffer.from(buf.subarray(0, n)));
        const first = firstDocument(Buffer.concat(chunks).toString('utf8'));
        if (first !== undefined) return finish(first);
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
      const first = firstDocument(Buffer.concat(chunks).toString('utf8'));
      if (first !== undefined) finish(first);
    });
    stdin.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      finish(firstDocument(text) ?? text);
    });
    stdin.on('error', () => finish(null));
  });
}

/** One line in the hook log; never throws (the hook must not fail because its log cannot be written). */
export function logLine(ctx: Pick<Context, 'home' | 'env'>, message: string): void {
  try {
    // Where the state folder is read-only (a hook run inside a sandbox), the temp folder it leaves writable. Nothing
    // said about a log that is not sparehand's (the hook's stderr is the tool's): it is made anew.
    const usual = hookLogPath(ctx);
    const dir = writableDir({ env: ctx.env }, dirname(usual), 'state');
    if (dir === undefined) return;
    appendOwnFile({}, join(dir, basename(usual)), `${new Date().toISOString()} ${message.replace(/\s+/g, ' ').slice(0, 2000)}\n`, { max: MAX_LOG });
  } catch {
    // nowhere to log: stay silent
  }
}
