// Every install/uninstall edit is made in memory first, then written: a backup of the old content where asked (as
// private as the file), an atomic write, nothing at all when the content is unchanged (idempotent), and a unified
// diff for --dry-run.
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { chmod, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { removeStaleTemps, writeFileAtomically } from '../fs-atomic.js';
import { SparehandError } from '../errors.js';

interface Entry {
  before: string | undefined;
  after: string | undefined;
  mode?: number;
  backupTo?: string;
  internal?: boolean;
}

export interface Change {
  path: string;
  before: string | undefined;
  /** undefined: the file is removed. */
  after: string | undefined;
  mode?: number;
  /** Keep the previous content in this file (install does for the user's files; never for sparehand's own). */
  backupTo?: string;
  /** sparehand's own bookkeeping (not shown by --dry-run). */
  internal?: boolean;
}

export interface Workspace {
  /** Current (edited) text of a file; undefined when it does not exist. */
  read(path: string): Promise<string | undefined>;
  write(path: string, text: string | undefined, opts?: { mode?: number; backupTo?: string; internal?: boolean }): void;
  changes(): Change[];
  /** Every path read so far. */
  paths(): string[];
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
      files.set(path, { before, after: before });
      return before;
    },
    write(path, text, opts = {}) {
      const known = files.get(path);
      if (!known) throw new SparehandError('INTERNAL', `write before read: ${path}`);
      known.after = text;
      if (opts.mode !== undefined) known.mode = opts.mode;
      if (opts.backupTo !== undefined) known.backupTo = opts.backupTo;
      if (opts.internal) known.internal = true;
    },
    checkpoint() {
      const saved = new Map([...files].map(([path, e]) => [path, { ...e }]));
      return () => {
        for (const [path, e] of files) files.set(path, saved.get(path) ?? { before: e.before, after: e.before });
      };
    },
    paths() {
      return [...files.keys()];
    },
    changes() {
      return [...files]
        .filter(([, e]) => e.before !== e.after)
        .map(([path, e]) => ({
          path,
          before: e.before,
          after: e.after,
          ...(e.backupTo === undefined ? {} : { backupTo: e.backupTo }),
          ...(e.mode === undefined ? {} : { mode: e.mode }),
          ...(e.internal ? { internal: true } : {}),
        }));
    },
  };
}

/**
 * Writes the changes: the backup first (with the file's own mode: a 0600 settings file holding tokens must not get a
 * 0644 copy), then an atomic replace or a removal. Temp files a killed sparehand left beside them go first.
 */
export async function applyChanges(changes: readonly Change[], opts: { sweep?: readonly string[]; recordFirst?: boolean } = {}): Promise<void> {
  for (const dir of new Set([...changes.map((c) => c.path), ...(opts.sweep ?? [])].map((p) => dirname(p)))) removeStaleTemps(dir);
  // sparehand's own record goes first on install and last on uninstall: whatever a kill leaves behind, the record
  // still names it.
  const own = changes.filter((c) => c.internal);
  const user = changes.filter((c) => !c.internal);
  const done: Change[] = [];
  const backups: string[] = [];
  for (const c of opts.recordFirst ? [...own, ...user] : [...user, ...own]) {
    try {
      if (c.before !== undefined && c.backupTo !== undefined) {
        const mode = (await stat(c.path)).mode & 0o7777;
        if (!existsSync(c.backupTo)) backups.push(c.backupTo);
        await writeFileAtomically(c.backupTo, c.before, { mode });
      }
      if (c.after === undefined) {
        await rm(c.path, { force: true });
      } else {
        await writeFileAtomically(c.path, c.after, c.mode === undefined ? {} : { mode: c.mode });
        if (c.mode !== undefined) await chmod(c.path, c.mode);
      }
      done.push(c);
    } catch (e) {
      // Nothing half-done: what was written goes back as it was (the record too), the new backups go.
      await undo(done, backups);
      throw cannotWrite(c.path, e);
    }
  }
}

/** Puts back what `done` changed, newest first, and removes the backups this apply created. Best effort: the error that stopped it is the one to report. */
async function undo(done: readonly Change[], backups: readonly string[]): Promise<void> {
  for (const c of [...done].reverse()) {
    await (c.before === undefined ? rm(c.path, { force: true }) : writeFileAtomically(c.path, c.before)).catch(() => undefined);
  }
  for (const b of backups) await rm(b, { force: true }).catch(() => undefined);
}

/** The error for a file install cannot write, naming it and what to do (an unknown failure is still a bug). */
function cannotWrite(path: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    EACCES: `let your user write its folder (sparehand writes a new file beside it and renames it over it): \`ls -ld ${dirname(path)}\``,
    EPERM: `the file or its folder may not be changed (immutable: \`lsattr ${path}\`, or a managed profile); make it writable, or add the hook by hand (\`sparehand agent install TOOL --dry-run\` prints it)`,
    EROFS:
      "it is on a read-only file system (a link into a store such as home-manager's /nix/store?): add the hook to the source of your dotfiles and apply them, or replace the link by a copy; `sparehand agent install TOOL --dry-run` prints the change",
    EBUSY:
      'it is a mount point (a file bind-mounted into a container?): it cannot be replaced; install in the file it is mounted from, or add the hook by hand (`--dry-run` prints it)',
    EXDEV: 'it links to another file system; add the hook where the link points, or replace the link by a copy',
    ENOSPC: 'the disk is full; free some space and run install again',
  };
  if (code === undefined || known[code] === undefined) return e as Error;
  return new SparehandError('INSTALL', `cannot write ${path}: ${(e as Error).message}; nothing was changed`, { hint: known[code], cause: e });
}

/** Removes those of `dirs` that are empty, deepest first; returns the ones that are gone. */
export function removeEmptyDirs(dirs: readonly string[]): string[] {
  const gone: string[] = [];
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      removeStaleTemps(dir);
      if (readdirSync(dir).length > 0) continue;
      rmdirSync(dir);
      gone.push(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') gone.push(dir);
    }
  }
  return gone;
}

/** The unified diff of one change, as `diff -u` prints it (for --dry-run). */
export function unifiedDiff(c: Change): string {
  const from = c.before === undefined ? '/dev/null' : c.path;
  const to = c.after === undefined ? '/dev/null' : c.path;
  const patch = createTwoFilesPatch(from, to, c.before ?? '', c.after ?? '', undefined, undefined, { context: 3 });
  return patch.slice(patch.indexOf('--- '));
}
