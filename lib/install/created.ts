// What install created, so that uninstall removes exactly that and nothing of the user's: the files it created (a
// pre-existing `{}` stays), the containers on the way to the hook list in a file of the user's (their own empty
// `"PreToolUse": []` stays), the backups it wrote, and the folders it made. Kept in sparehand's state folder, one
// JSON document; gone, with the folders it needed, once nothing is left in it.
import { join } from 'node:path';
import { isObject } from '../agents/shapes.js';
import type { InstallBase } from '../agents/types.js';
import { missingDirs } from '../fs-atomic.js';
import { stateDir } from '../paths.js';
import { type Workspace, applyChanges, removeEmptyDirs, workspace } from './workspace.js';

export interface FileRecord {
  /** The tools whose hook or note install put in the file. */
  by?: string[];
  /** arrayPath (dotted) → the depth (1 = the top key) from which install created it. */
  containers?: Record<string, number>;
  /** Install created the file itself. */
  created?: true;
  /** Where install put the backup of the user's file. */
  backup?: string;
  /** What `--sandbox-access` changed in a tool's settings (lib/sandbox/access.ts), per tool id. */
  sandbox?: Record<string, SandboxEdits>;
}

/** The widening of one tool's sandbox, as written: so that uninstall takes back exactly that. */
export interface SandboxEdits {
  /** Dotted key → the values install added to that list. */
  added: Record<string, string[]>;
  /** Dotted key → what it held before install set it (`had: false`: it was not there). */
  set: Record<string, { had: boolean; value?: unknown }>;
  /** Dotted key → the depth (1 = its first key) from which install created it. */
  createdFrom: Record<string, number>;
}

export interface InstallRecord {
  files: Record<string, FileRecord>;
  /** Folders install created (uninstall removes those that are empty). */
  dirs: string[];
}

type Base = Pick<InstallBase, 'home' | 'env'>;

export const createdPath = (base: Base): string => join(stateDir(base), 'created.json');

/** The record as the workspace has it now (an older record, `{file: {arrayPath: depth}}`, is read as containers). */
export async function loadRecord(ws: Workspace, base: Base): Promise<InstallRecord> {
  let doc: unknown;
  try {
    doc = JSON.parse((await ws.read(createdPath(base))) ?? '{}');
  } catch {
    doc = {};
  }
  if (!isObject(doc)) return { files: {}, dirs: [] };
  if (!('files' in doc) && !('dirs' in doc)) {
    return { files: Object.fromEntries(Object.entries(doc).map(([f, c]) => [f, { containers: c as Record<string, number> }])), dirs: [] };
  }
  return { files: isObject(doc.files) ? (doc.files as Record<string, FileRecord>) : {}, dirs: Array.isArray(doc.dirs) ? (doc.dirs as string[]) : [] };
}

/** Writes the record through the workspace (removed when empty); the folders it needs are recorded in it. */
export async function saveRecord(ws: Workspace, base: Base, record: InstallRecord): Promise<void> {
  const file = createdPath(base);
  for (const [f, r] of Object.entries(record.files)) {
    if (r.containers && Object.keys(r.containers).length === 0) delete r.containers;
    if (r.by && r.by.length === 0) delete r.by;
    if (Object.keys(r).length === 0) delete record.files[f];
  }
  const empty = Object.keys(record.files).length === 0;
  if (!empty && (await ws.read(file)) === undefined) addDirs(record, missingDirs(file));
  const text = empty && record.dirs.length === 0 ? undefined : `${JSON.stringify(record, null, 2)}\n`;
  if (text !== (await ws.read(file))) ws.write(file, text, { internal: true });
}

/** Notes folders install is about to create. */
export function addDirs(record: InstallRecord, dirs: readonly string[]): void {
  for (const d of dirs) if (!record.dirs.includes(d)) record.dirs.push(d);
}

/** The entry for one file, made on first use. */
export const fileRecord = (record: InstallRecord, path: string): FileRecord => (record.files[path] ??= {});

/**
 * After an uninstall: the folders install created that are empty now go, and the record with them once it names no
 * file (then its own folders go too, when empty). sparehand's state folder goes when empty, recorded or not (a kill
 * while the first record was written leaves it unrecorded).
 */
export async function removeCreatedDirs(base: Base): Promise<void> {
  const ws = workspace();
  const record = await loadRecord(ws, base);
  const gone = new Set(removeEmptyDirs(record.dirs));
  const left = record.dirs.filter((d) => !gone.has(d));
  const done = Object.keys(record.files).length === 0;
  record.dirs = done ? [] : left;
  await saveRecord(ws, base, record);
  await applyChanges(ws.changes());
  removeEmptyDirs(done ? [...left, stateDir(base)] : [stateDir(base)]);
}
