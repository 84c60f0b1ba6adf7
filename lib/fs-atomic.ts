// Every file sparehand writes for the user goes through here: temp file + fsync + rename, never truncated.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export async function writeFileAtomically(path: string, data: string, options: { mode?: number } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, data, { fsync: true, ...(options.mode === undefined ? {} : { mode: options.mode }) });
}
