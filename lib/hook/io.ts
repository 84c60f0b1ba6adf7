// The hook's input and its log: stdin read with a size cap and a time limit, errors appended to a bounded log.
import { appendFileSync, mkdirSync, statSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from '../context.js';
import { hookLogPath } from '../paths.js';

export const MAX_PAYLOAD = 1024 * 1024;
const MAX_LOG = 256 * 1024;

/** The whole of stdin, or null when it is over the cap or does not end within `ms`. */
export function readPayload(stdin: Readable, ms = 5000): Promise<string | null> {
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
