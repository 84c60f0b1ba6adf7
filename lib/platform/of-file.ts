// native-code.ts over a file on this disk: only the headers it asks for are read, whatever the file's size.
import { closeSync, openSync, readSync } from 'node:fs';
import { type NativeCode, nativeCode } from './native-code.js';

/** What native code the file holds, if any; undefined too when it cannot be read. */
export function nativeCodeOfFile(path: string): NativeCode | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    return nativeCode((offset, length) => {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, 1 << 20)));
      const n = buf.length === 0 || offset < 0 || !Number.isSafeInteger(offset) ? 0 : readSync(fd, buf, 0, buf.length, offset);
      return buf.subarray(0, n);
    });
  } finally {
    closeSync(fd);
  }
}
