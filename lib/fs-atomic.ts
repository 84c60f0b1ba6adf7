// Every file sparehand writes for the user goes through here: temp file + fsync + rename, never truncated.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileAtomically(path: string, data: string, options: { mode?: number } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Loaded on first write: the hook's hot path imports the config module but never writes.
  const { default: writeFileAtomic } = await import('write-file-atomic');
  await writeFileAtomic(path, data, { fsync: true, ...(options.mode === undefined ? {} : { mode: options.mode }) });
}
