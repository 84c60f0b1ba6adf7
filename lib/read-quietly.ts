// Reading what may be missing or unreadable, where that only means "nothing there": a cache, a record, a
// project's files looked at for hints. (What the user must hear about, such as the config, is read elsewhere.)
import { readFileSync, readdirSync, realpathSync } from 'node:fs';

/** The names in a folder; none when it cannot be listed. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A file's text; '' when it cannot be read. */
export function textOf(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A JSON file's value; undefined when it cannot be read or parsed. */
export function jsonOf(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A path without its links; the path as it is when it cannot be resolved (missing, unreadable). */
export function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
