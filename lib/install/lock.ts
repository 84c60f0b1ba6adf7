// One install or uninstall at a time per state folder: each plans from the files and the record of what install
// created, then writes them, so two at once would each write a record that lacks the other's files (and uninstall
// would leave those behind). The lock is a file in this user's private temp folder (`$TMPDIR/sparehand-<uid>`, else
// the cache folder) naming its holder's pid (not in the state folder, which uninstall removes when empty; not loose in
// a shared /tmp, where another user could make it first and hold every install off); a holder that died leaves a
// lock the next one takes over.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { InstallBase } from '../agents/types.js';
import { SparehandError } from '../errors.js';
import { cacheDir, stateDir } from '../paths.js';
import { processAlive } from '../pid.js';
import { tempOwnDir } from '../state/own-dirs.js';
import { createOwnFile, ownFolder, readOwnFile } from '../state/own-file.js';

const WAIT_MS = 60_000;

/** The lock file for the state folder `base` has. */
function lockPath(base: Pick<InstallBase, 'home' | 'env'>): string {
  const id = createHash('sha256').update(stateDir(base)).digest('hex').slice(0, 16);
  const dir = [tempOwnDir(base), cacheDir(base)].find((d) => ownFolder({}, d, { make: true })) ?? cacheDir(base);
  return join(dir, `install-${id}.lock`);
}

/** Takes the lock (true), or false while another process holds it (a dead holder's lock is removed for the next try). */
function tryLock(file: string): boolean {
  const made = createOwnFile({}, file, `${process.pid}\n`);
  if (made === 'made') return true;
  if (made === 'failed') throw new SparehandError('INSTALL', `cannot make the install lock ${file}`);
  const text = readOwnFile({}, file);
  // Not a file sparehand made (a link, a FIFO planted there): no holder, taken away.
  if (text === undefined) {
    rmSync(file, { force: true });
    return false;
  }
  const holder = Number.parseInt(text, 10);
  // Being written this instant (no pid yet): wait for it. A holder that is gone: its lock goes.
  if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) rmSync(file, { force: true });
  return false;
}

/** Runs `fn` holding the install lock; waits up to a minute for another install or uninstall to finish. */
export async function withInstallLock<T>(base: Pick<InstallBase, 'home' | 'env'>, fn: () => Promise<T>): Promise<T> {
  const file = lockPath(base);
  const until = Date.now() + WAIT_MS;
  while (!tryLock(file)) {
    if (Date.now() > until) {
      throw new SparehandError('INSTALL', 'another `sparehand agent install` or `uninstall` has been running for a minute', {
        hint: `wait for it to finish; if none runs, remove ${file}`,
      });
    }
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}
