// Every install/uninstall edit is made in memory first, then written: a .bak of the old content, an atomic write,
// nothing at all when the content is unchanged (idempotent), and a unified diff for --dry-run.
import { chmod, readFile, rm } from 'node:fs/promises';
import { createTwoFilesPatch } from 'diff';
import { writeFileAtomically } from '../fs-atomic.js';
import { SparehandError } from '../errors.js';

interface Entry {
  before: string | undefined;
  after: string | undefined;
  mode?: number;
  backup: boolean;
  internal?: boolean;
}

export interface Change {
  path: string;
  before: string | undefined;
  /** undefined: the file is removed. */
  after: string | undefined;
  mode?: number;
  /** Keep the previous content in `<file>.bak` (not for sparehand's own files: a stray copy could be run). */
  backup?: boolean;
  /** sparehand's own bookkeeping (not shown by --dry-run). */
  internal?: boolean;
}

export interface Workspace {
  /** Current (edited) text of a file; undefined when it does not exist. */
  read(path: string): Promise<string | undefined>;
  write(path: string, text: string | undefined, opts?: { mode?: number; backup?: boolean; internal?: boolean }): void;
  changes(): Change[];
  /** Remembers the edits so far; the function it returns undoes every edit made after it. */
  checkpoint(): () => void;
}

/** Reads a file, undefined when it does not exist. */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SparehandError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** A fresh in-memory view of the file system for one install or uninstall. */
export function workspace(): Workspace {
  const files = new Map<string, Entry>();
  return {
    async read(path) {
      const known = files.get(path);
      if (known) return known.after;
      const before = await readIfExists(path);
      files.set(path, { before, after: before, backup: true });
      return before;
    },
    write(path, text, opts = {}) {
      const known = files.get(path);
      if (!known) throw new SparehandError('INTERNAL', `write before read: ${path}`);
      known.after = text;
      if (opts.mode !== undefined) known.mode = opts.mode;
      if (opts.backup === false) known.backup = false;
      if (opts.internal) known.internal = true;
    },
    checkpoint() {
      const saved = new Map([...files].map(([path, e]) => [path, { ...e }]));
      return () => {
        for (const [path, e] of files) files.set(path, saved.get(path) ?? { ...e, after: e.before, backup: true });
      };
    },
    changes() {
      return [...files]
        .filter(([, e]) => e.before !== e.after)
        .map(([path, e]) => ({
          path,
          before: e.before,
          after: e.after,
          backup: e.backup,
          ...(e.mode === undefined ? {} : { mode: e.mode }),
          ...(e.internal ? { internal: true } : {}),
        }));
    },
  };
}

/** Writes the changes: `.bak` of the previous content first, then an atomic replace (or removal). */
export async function applyChanges(changes: readonly Change[]): Promise<void> {
  for (const c of changes) {
    if (c.before !== undefined && c.backup !== false) await writeFileAtomically(`${c.path}.bak`, c.before);
    if (c.after === undefined) {
      await rm(c.path, { force: true });
    } else {
      await writeFileAtomically(c.path, c.after, c.mode === undefined ? {} : { mode: c.mode });
      if (c.mode !== undefined) await chmod(c.path, c.mode);
    }
  }
}

/** The unified diff of one change, as `diff -u` prints it (for --dry-run). */
export function unifiedDiff(c: Change): string {
  const from = c.before === undefined ? '/dev/null' : c.path;
  const to = c.after === undefined ? '/dev/null' : c.path;
  const patch = createTwoFilesPatch(from, to, c.before ?? '', c.after ?? '', undefined, undefined, { context: 3 });
  return patch.slice(patch.indexOf('--- '));
}
