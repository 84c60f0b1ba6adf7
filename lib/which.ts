// Finds an executable on a PATH value, as a shell would (the hook, install and status all ask).
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable file named `name` on `path` (a PATH value), or undefined. */
export function which(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether `file` is (a link to) `target`. */
export function resolvesTo(file: string, target: string): boolean {
  try {
    return realpathSync(file) === realpathSync(target);
  } catch {
    return false;
  }
}
