// What install created in the user's settings files (the containers on the way to the hook list), so that
// uninstall removes exactly that and leaves the user's own empty `"hooks": {"PreToolUse": []}` in place.
// Kept in sparehand's state folder, one JSON document: { "<file>": { "<arrayPath>": depth } }.
import { join } from 'node:path';
import type { InstallBase } from '../agents/types.js';
import { stateDir } from '../paths.js';
import type { Workspace } from './workspace.js';

type Record_ = Record<string, Record<string, number>>;

export const createdPath = (base: Pick<InstallBase, 'home' | 'env'>): string => join(stateDir(base), 'created.json');

async function load(ws: Workspace, file: string): Promise<Record_> {
  try {
    const doc = JSON.parse((await ws.read(file)) ?? '{}') as unknown;
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record_) : {};
  } catch {
    return {};
  }
}

/** The recorded depth from which install created `arrayPath` in `path`, if any. */
export async function createdFrom(ws: Workspace, base: Pick<InstallBase, 'home' | 'env'>, path: string, arrayPath: readonly string[]): Promise<number | undefined> {
  return (await load(ws, createdPath(base)))[path]?.[arrayPath.join('.')];
}

/** Records (depth) or forgets (undefined) what install created in `path`. */
export async function recordCreated(
  ws: Workspace,
  base: Pick<InstallBase, 'home' | 'env'>,
  path: string,
  arrayPath: readonly string[],
  depth: number | undefined,
): Promise<void> {
  const file = createdPath(base);
  const doc = await load(ws, file);
  const key = arrayPath.join('.');
  if (depth === undefined) {
    if (doc[path]?.[key] === undefined) return;
    delete doc[path]![key];
    if (Object.keys(doc[path]!).length === 0) delete doc[path];
  } else {
    if (doc[path]?.[key] === depth) return;
    doc[path] = { ...doc[path], [key]: depth };
  }
  ws.write(file, Object.keys(doc).length === 0 ? undefined : `${JSON.stringify(doc, null, 2)}\n`, { backup: false, internal: true });
}
