// node:fs for a bundle that runs where there is no node (../read-ahead.ts): what sparehand's hook calls of it, served
// from what was read ahead (./world.ts). A read nothing was read ahead for is noted and answered as a missing file;
// the run is then made again with it read. Writes stay in the run's world until the runner writes them through the
// tool. Links are not followed by name (realpath is the path itself), and a file's mode is not known (access passes).
import { Buffer } from './globals.js';
import { resolve } from './node-path.js';
import { type StatInfo, fsError, known, world } from './world.js';

export const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_NONBLOCK: 2048 };

type Data = string | Uint8Array;
const text = (data: Data): string => (typeof data === 'string' ? data : new TextDecoder().decode(data));

/** The text this run sees at `path`: written in this run, else read ahead (plus what this run appended). */
function textAt(path: string, syscall: string): string {
  const written = world.written.get(path);
  if (written === null) throw fsError('ENOENT', syscall, path);
  if (written !== undefined) return written;
  const k = known(path, 'text');
  if (k === undefined) throw fsError('ENOENT', syscall, path);
  if ('error' in k) throw fsError(k.error, syscall, path);
  return k.value + (world.appended.get(path) ?? '');
}

/** A stat as node's Stats answers it (no owner and no mode bits: the lender does not say them). */
class Stats {
  readonly size: number;
  readonly mtimeMs: number;
  readonly mtime: Date;
  readonly mode: number;
  readonly uid = undefined;
  constructor(private readonly info: StatInfo) {
    this.size = info.size;
    this.mtimeMs = info.mtimeMs;
    this.mtime = new Date(info.mtimeMs);
    this.mode = info.kind === 'dir' ? 0o40755 : 0o100644;
  }
  isFile = (): boolean => this.info.kind === 'file';
  isDirectory = (): boolean => this.info.kind === 'dir';
  isSymbolicLink = (): boolean => this.info.kind === 'link';
  isFIFO = (): boolean => false;
  isCharacterDevice = (): boolean => false;
}

function statOf(given: string, what: 'stat' | 'lstat', opts?: { throwIfNoEntry?: boolean }): Stats | undefined {
  const path = resolve(given);
  const written = world.written.get(path);
  if (typeof written === 'string') return new Stats({ kind: 'file', size: Buffer.byteLength(written), mtimeMs: Date.now() });
  if (written === undefined && world.dirs.has(path)) return new Stats({ kind: 'dir', size: 0, mtimeMs: Date.now() });
  const k = written === null ? { error: 'ENOENT' } : (known(path, what) ?? { error: 'ENOENT' });
  if ('value' in k) return new Stats(k.value);
  if (opts?.throwIfNoEntry === false && k.error === 'ENOENT') return undefined;
  throw fsError(k.error, what, path);
}

export const statSync = (path: string, opts?: { throwIfNoEntry?: boolean }) => statOf(path, 'stat', opts);
export const lstatSync = (path: string, opts?: { throwIfNoEntry?: boolean }) => statOf(path, 'lstat', opts);

export function existsSync(path: string): boolean {
  try {
    return statOf(path, 'stat') !== undefined;
  } catch {
    return false;
  }
}

export function accessSync(path: string): void {
  statOf(path, 'stat');
}

export const realpathSync = Object.assign((path: string): string => resolve(path), { native: (path: string): string => resolve(path) });

export function readFileSync(given: string, opts?: string | { encoding?: string }): string | Uint8Array {
  const t = textAt(resolve(given), 'open');
  return (typeof opts === 'string' ? opts : opts?.encoding) ? t : Buffer.from(t);
}

export function readdirSync(given: string): string[] {
  const path = resolve(given);
  const k = known(path, 'list') ?? { error: 'ENOENT' };
  if ('error' in k) throw fsError(k.error, 'scandir', path);
  return [...k.value];
}

export function writeFileSync(given: string, data: Data): void {
  const path = resolve(given);
  world.written.set(path, text(data));
  world.appended.delete(path);
}

export function appendFileSync(given: string, data: Data): void {
  const path = resolve(given);
  const written = world.written.get(path);
  if (typeof written === 'string') world.written.set(path, written + text(data));
  else world.appended.set(path, (world.appended.get(path) ?? '') + text(data));
}

export function truncateSync(given: string): void {
  world.written.set(resolve(given), '');
  world.appended.delete(resolve(given));
}

export function mkdirSync(given: string): void {
  world.dirs.add(resolve(given));
}

export function rmSync(given: string): void {
  world.written.set(resolve(given), null);
  world.appended.delete(resolve(given));
}

export function renameSync(from: string, to: string): void {
  writeFileSync(to, textAt(resolve(from), 'rename'));
  rmSync(from);
}

export function chmodSync(): void {}

/** The running program (the stand-in process's execPath). */
const EXE = '/proc/self/exe';

/** Open files: what they hold (read ahead when opened) and where a read with no position goes on. */
const open = new Map<number, { data: Uint8Array; at: number }>();
let nextFd = 3;

export function openSync(given: string): number {
  const path = resolve(given);
  let data: Uint8Array;
  if (path === EXE) {
    // The program's first bytes (lib/platform/here.ts reads its ELF header), not its text.
    const k = known(path, 'bytes') ?? { error: 'ENOENT' };
    if ('error' in k) throw fsError(k.error, 'open', path);
    data = k.value;
  } else data = Buffer.from(textAt(path, 'open'));
  const fd = nextFd++;
  open.set(fd, { data, at: 0 });
  return fd;
}

export function fstatSync(fd: number): Stats {
  const f = open.get(fd);
  if (!f) throw fsError('EBADF', 'fstat', String(fd));
  return new Stats({ kind: 'file', size: f.data.length, mtimeMs: Date.now() });
}

export function readSync(fd: number, buf: Uint8Array, offset: number, length: number, position: number | null): number {
  const f = open.get(fd);
  if (!f) throw fsError('EBADF', 'read', String(fd));
  const from = position ?? f.at;
  const part = f.data.subarray(from, from + Math.min(length, buf.length - offset));
  buf.set(part, offset);
  if (position === null) f.at += part.length;
  return part.length;
}

export function closeSync(fd: number): void {
  open.delete(fd);
}

export function writeSync(): number {
  throw fsError('EBADF', 'write', 'a descriptor');
}

/** fs.promises: the same world, for the few async calls on the hook's path. */
export const promises = {
  stat: async (path: string) => statSync(path),
  lstat: async (path: string) => lstatSync(path),
  readFile: async (path: string, opts?: string | { encoding?: string }) => readFileSync(path, opts),
  readdir: async (path: string) => readdirSync(path),
  writeFile: async (path: string, data: Data) => writeFileSync(path, data),
  mkdir: async (path: string) => mkdirSync(path),
  rename: async (from: string, to: string) => renameSync(from, to),
  rm: async (path: string) => rmSync(path),
  readlink: async (path: string): Promise<string> => {
    throw fsError('EINVAL', 'readlink', path);
  },
  open: async (path: string) => {
    let data = '';
    return {
      chmod: async () => {},
      writeFile: async (d: Data) => {
        data += text(d);
      },
      sync: async () => {},
      close: async () => writeFileSync(path, data),
    };
  },
};

export default {
  constants,
  statSync,
  lstatSync,
  existsSync,
  accessSync,
  realpathSync,
  readFileSync,
  readdirSync,
  writeFileSync,
  appendFileSync,
  truncateSync,
  mkdirSync,
  rmSync,
  renameSync,
  chmodSync,
  openSync,
  fstatSync,
  readSync,
  closeSync,
  writeSync,
  promises,
};
