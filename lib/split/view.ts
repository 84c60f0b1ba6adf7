// What the split planner may read of the project: a file's text and a folder's entries, relative to the folder the
// command runs in. Injected, so that the planner stays pure and its tests need no disk.
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export interface ProjectView {
  /** A file's text, or undefined when there is none (or it cannot be read). */
  read(path: string): string | undefined;
  /** A folder's entries (links are not followed: a linked folder is not walked), [] when there is none. */
  list(path: string): Array<{ name: string; folder: boolean }>;
  /** False: folders are not to be walked (the hook's quick look); a runner split by file or package is taken as splittable. */
  walk?: false;
}

/** The real files under `cwd`. */
export function diskView(cwd: string): ProjectView {
  const at = (p: string) => (isAbsolute(p) ? p : join(cwd, p));
  return {
    read(p) {
      try {
        return readFileSync(at(p), 'utf8');
      } catch {
        return undefined;
      }
    },
    list(p) {
      // Names, then one lstat each: the same calls in the hook's stand-ins (lib/hook/read-ahead/), which have no Dirent.
      let names: string[];
      try {
        names = readdirSync(at(p)).map(String);
      } catch {
        return [];
      }
      return names.flatMap((name) => {
        try {
          return [{ name, folder: lstatSync(join(at(p), name)).isDirectory() }];
        } catch {
          return [];
        }
      });
    },
  };
}

/** A view of files given as `{ 'a/b.txt': 'text' }` (folders are implied by the paths): for tests and dry plans. */
export function memoryView(files: Readonly<Record<string, string>>): ProjectView {
  const norm = (p: string) => p.replace(/^\.\/?/, '').replace(/\/+$/, '');
  return {
    read: (p) => files[norm(p)],
    list(p) {
      const dir = norm(p);
      const prefix = dir === '' ? '' : `${dir}/`;
      const seen = new Map<string, boolean>();
      for (const f of Object.keys(files)) {
        if (!f.startsWith(prefix)) continue;
        const [name, ...rest] = f.slice(prefix.length).split('/');
        if (name) seen.set(name, (seen.get(name) ?? false) || rest.length > 0);
      }
      return [...seen].map(([name, folder]) => ({ name, folder }));
    },
  };
}
