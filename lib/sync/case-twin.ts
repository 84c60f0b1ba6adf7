// On a disk here that ignores case (a Mac's, by default), two names that differ only in case are one file: which
// of the command's new paths would become one with another, and with which. Pure, names only: apply.ts asks it
// change by change, in the order it applies them, and lends it the names each folder holds here at that moment
// (what the deletions before freed is no twin any more); test/sync/case-twin.test.ts runs it over every order of a
// few names. decide.ts makes a twin a 'case' conflict: the two are never merged.
import type { Change } from '../remote/change.js';

/** The name in `names` (one folder's, here) that differs from `name` only in case, if any. */
export function twinAmong(name: string, names: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  return names.find((x) => x !== name && x.toLowerCase() === lower);
}

/** The names a folder holds here (relative to the project; '' is its root), or undefined when there is none to read. */
export type NamesHere = (folder: string) => readonly string[] | undefined;

/** Asked once per change, in the apply's order: the path `c.path` would be one file with, or undefined. */
export type CaseTwinOf = (c: Pick<Change, 'op' | 'type' | 'path'>, namesHere: NamesHere) => string | undefined;

/**
 * A twin is a name here in the same folder, or a path created earlier in the order; and whatever the command
 * created inside a new folder that has a twin has one too, the same path under the twin (nothing is merged into
 * the folder here). Only created paths have twins: a change to a path here is to the one file it names.
 */
export function caseTwins(): CaseTwinOf {
  /** Created paths seen so far, by their lower case: the last one seen of each. */
  const created = new Map<string, string>();
  /** New folders that have a twin, and that twin. */
  const twinFolders = new Map<string, string>();
  const underTwinFolder = (path: string): string | undefined => {
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
      const twin = twinFolders.get(path.slice(0, i));
      if (twin !== undefined) return `${twin}${path.slice(i)}`;
    }
    return undefined;
  };
  const twinHere = (path: string, namesHere: NamesHere): string | undefined => {
    const i = path.lastIndexOf('/');
    const [folder, name] = i < 0 ? ['', path] : [path.slice(0, i), path.slice(i + 1)];
    const names = namesHere(folder);
    const twin = names === undefined ? undefined : twinAmong(name, names);
    return twin === undefined ? undefined : folder === '' ? twin : `${folder}/${twin}`;
  };
  return (c, namesHere) => {
    if (c.op !== 'C') return undefined;
    const inside = underTwinFolder(c.path);
    const lower = c.path.toLowerCase();
    const earlier = created.get(lower);
    // (Read only when needed: a path inside a twin folder has its twin already, and its folder here is the twin's.)
    const twin = inside ?? twinHere(c.path, namesHere) ?? (earlier !== undefined && earlier !== c.path ? earlier : undefined);
    if (inside === undefined) created.set(lower, c.path);
    if (twin !== undefined && c.type === 'd') twinFolders.set(c.path, twin);
    return twin;
  };
}
