// A local file's times now, to tell whether it was written while the command ran.
import { lstat } from 'node:fs/promises';

export interface Stamp {
  mtimeMs: number;
  /** 0 where the file system does not record it. */
  birthtimeMs: number;
}

/** The file's stamp now, or undefined when it is gone. */
export async function stampOf(path: string): Promise<Stamp | undefined> {
  try {
    const st = await lstat(path);
    return { mtimeMs: st.mtimeMs, birthtimeMs: st.birthtimeMs };
  } catch {
    return undefined;
  }
}
