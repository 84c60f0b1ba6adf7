// Which of the project's copies on a worker a run uses: `<dir>/<project>/<n>`, one per run of this machine's
// project at the same time. Decided here, without asking the worker, so the project can be sent while the worker
// is asked for a slot (worker-slots.ts) in parallel. A copy is held by a file here created exclusively; a file
// whose process is gone is taken over, and one that cannot be judged only makes the run use another copy (a
// full sync), never wait.
import { linkSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { processAlive } from '../pid.js';
import { textOf } from '../read-quietly.js';

type Env = Pick<Context, 'home' | 'env'>;

/** The lowest copy number of `key` on `worker` no run of this machine holds; held until `release()`. */
export function takeFolder(c: Env, worker: Worker, key: string): { index: number; release: () => void } {
  const dir = join(stateDir(c), 'folders');
  mkdirSync(dir, { recursive: true });
  const me = `${process.pid}\n${hostname()}\n`;
  for (let index = 0; ; index++) {
    const file = join(dir, `${worker.name}.${key}.${index}`);
    // Written in full first, then linked into place: the lock never exists without its owner.
    const mine = `${file}.${process.pid}`;
    writeFileSync(mine, me, { mode: 0o600 });
    try {
      linkSync(mine, file);
      return { index, release: () => releaseIfMine(file, me) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const stale = textOf(file);
      const [pid, host] = stale.split('\n');
      if (host === hostname() && Number(pid) > 0 && !processAlive(Number(pid))) {
        // Its run is gone: move it aside and drop it only if it is still that stale file (another run may have
        // taken it over meanwhile), then take it.
        const aside = `${file}.stale.${process.pid}`;
        try {
          renameSync(file, aside);
          if (textOf(aside) === stale) unlinkSync(aside);
          else renameSync(aside, file);
          linkSync(mine, file);
          return { index, release: () => releaseIfMine(file, me) };
        } catch {
          /* another run won it: try the next */
        }
      }
    } finally {
      unlinkSync(mine);
    }
  }
}

function releaseIfMine(file: string, me: string): void {
  if (textOf(file) === me) unlinkSync(file);
}
