// The globals node gives and a tool's mod has not (its module sees no `process` and no `Buffer`): what sparehand's
// hook uses of them, for the bundle that runs there (../read-ahead.ts; scripts/build.js injects these).
import { world } from './world.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes that read as text as node's Buffer does (what `toString(encoding, start, end)` gives). */
class Bytes extends Uint8Array {
  override toString(encoding = 'utf8', start = 0, end = this.length): string {
    const part = this.subarray(start, end);
    if (encoding === 'latin1' || encoding === 'binary') {
      let s = '';
      for (const c of part) s += String.fromCharCode(c);
      return s;
    }
    return decoder.decode(part);
  }
}

const from = (value: string | ArrayLike<number>, encoding = 'utf8'): Bytes => {
  if (typeof value !== 'string') {
    const b = new Bytes(value.length);
    b.set(value);
    return b;
  }
  if (encoding === 'latin1' || encoding === 'binary') return from(Array.from(value, (c) => c.charCodeAt(0) & 0xff));
  return from(encoder.encode(value));
};

/** node's Buffer, for what the hook does with one: made, filled by a read, sliced, read as text. */
export const Buffer = {
  alloc: (size: number): Bytes => new Bytes(size),
  allocUnsafe: (size: number): Bytes => new Bytes(size),
  from,
  byteLength: (value: string): number => encoder.encode(value).length,
  concat(list: readonly Uint8Array[]): Bytes {
    const b = new Bytes(list.reduce((n, x) => n + x.length, 0));
    let at = 0;
    for (const x of list) {
      b.set(x, at);
      at += x.length;
    }
    return b;
  },
  isBuffer: (value: unknown): boolean => value instanceof Bytes,
};

/** What the hook reads of its process: the environment, the machine, its pid and parent, its folder. */
export const process = {
  get env() {
    return world.env;
  },
  get platform() {
    return world.machine.platform;
  },
  get arch() {
    return world.machine.arch;
  },
  // The running program: its first bytes say which C library it was linked with (lib/platform/here.ts).
  execPath: '/proc/self/exe',
  get pid() {
    return world.machine.pid;
  },
  // The hook's parent is the tool itself: the permission rules of its command line are read from there on.
  get ppid() {
    return world.machine.pid;
  },
  cwd: (): string => world.cwd,
  versions: {} as Record<string, string>,
  getuid: undefined as (() => number) | undefined,
  report: undefined as { getReport(): unknown } | undefined,
};
