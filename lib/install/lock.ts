// One install or uninstall at a time per state folder: each plans from the files and the record of what install
// created, then writes them, so two at once would each write a record that lacks the other's files (and uninstall
// would leave those behind). The lock is a file in the temp folder naming its holder's pid (not in the state folder,
// which uninstall removes when empty); a holder that died leaves a lock the next one takes over.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstallBase } from '../agents/types.js';
import { SparehandError } from '../errors.js';
import { stateDir } from '../paths.js';
import { processAlive } from '../pid.js';

const WAIT_MS = 60_000;

/** The lock file for the state folder `base` has. */
function lockPath(base: Pick<InstallBase, 'home' | 'env'>): string {
  const id = createHash('sha256').update(stateDir(base)).digest('hex').slice(0, 16);
  return join(tmpdir(), `sparehand-install-${process.getuid?.() ?? 'u'}-${id}.lock`);
}

/** Takes the lock (true), or false while another process holds it (a dead holder's lock is removed for the next try). */
function tryLock(file: string): boolean {
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  let holder = Number.NaN;
  try {
    holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
  } catch {
    return false;
  }
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
