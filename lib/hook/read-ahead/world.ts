// What the stand-ins for node:fs and the process (./node-fs.ts, ./globals.ts) serve in a bundle that runs where there
// is no node (a tool's mod): the files read ahead (text, stat, listing, leading bytes, or the error reading them
// gave), what the code wrote in this run, and what it asked for that was not read ahead. One run at a time
// (../read-ahead.ts runs them one after another).

/** A file's stat as the lender gives it. */
export interface StatInfo {
  kind: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mtimeMs: number;
}

/** What can be read of a path: its text, its stat (following links or not), its names, its first bytes. */
export type What = 'text' | 'stat' | 'lstat' | 'list' | 'bytes';

/** A read's outcome: the value, or the error code reading it gave (`ENOENT`). */
export type Known<T> = { value: T } | { error: string };

export interface Entry {
  text?: Known<string>;
  stat?: Known<StatInfo>;
  lstat?: Known<StatInfo>;
  list?: Known<string[]>;
  bytes?: Known<Uint8Array>;
}

/** What the stand-in process says of the machine and of itself. */
export interface Machine {
  /** As node's `process.platform` and `process.arch` name them. */
  platform: string;
  arch: string;
  /** The pid of the process the code runs in (the tool's), whose ancestors are the hook's. */
  pid: number;
}

/** The state of the run under way. */
export const world = {
  known: new Map<string, Entry>(),
  /** Reads this run made (served or not), as `what\0path`. */
  asked: new Set<string>(),
  /** Reads this run made that nothing had been read ahead for. */
  missed: new Set<string>(),
  /** Files written (their whole text) or removed (null) in this run. */
  written: new Map<string, string | null>(),
  /** Text appended to a file whose text this run did not read. */
  appended: new Map<string, string>(),
  dirs: new Set<string>(),
  env: {} as NodeJS.ProcessEnv,
  cwd: '/',
  machine: { platform: 'linux', arch: 'x64', pid: 0 } as Machine,
};

export const key = (what: What, path: string): string => `${what}\0${path}`;

/** What was read ahead for `path` (noting the read); undefined when nothing was (noted as missed). */
export function known<W extends What>(path: string, what: W): Entry[W] {
  const k = key(what, path);
  world.asked.add(k);
  const entry = world.known.get(path)?.[what];
  if (entry === undefined) world.missed.add(k);
  return entry;
}

/**
 * An error as node's fs throws it, with its code, and no stack: the hook reads many files that are not there (a
 * config, the project's settings), and a stack costs more than the read.
 */
export function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const e = withoutStack(() => new Error(`${code}: ${syscall} '${path}'`)) as NodeJS.ErrnoException;
  e.code = code;
  e.syscall = syscall;
  e.path = path;
  return e;
}

/** What `make` makes, with no stack taken (where the engine lets its limit be set; else as usual). */
function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 0;
  } catch {
    return make();
  }
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
