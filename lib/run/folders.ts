// Which of the project's copies on a worker a run uses: `<dir>/<project>/<n>`, one per run of this machine's
// project at the same time. Decided here, without asking the worker, so the project can be sent while the worker
// is asked for a slot (worker-slots.ts) in parallel. A copy is held by a file here created exclusively; a file
// whose process is gone is taken over, and one that cannot be judged only makes the run use another copy (a
// full sync), never wait. Where the state folder cannot be written (a coding tool's sandbox keeps HOME read-only),
// the locks go in the project's own `.sparehand/folders`, which every run of the project also looks at.
import { linkSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { stateDir } from '../paths.js';
import { processAlive } from '../pid.js';
import { readOwnFile, replaceOwnFile } from '../state/own-file.js';
import { canWrite } from '../state/own-dirs.js';
import { OWN_FOLDER, ownFolder } from '../state/own-folder.js';

type Env = Pick<Context, 'home' | 'env'>;

/** A lock's text: '' when there is none, or it is not a file sparehand made (a link, a FIFO: never followed or waited on). */
const textOf = (file: string): string => readOwnFile({}, file, { linked: true }) ?? '';

/** Whether a lock file is held by a run that is still going (another machine's counts as held). */
function heldBy(file: string): boolean {
  const [pid, host] = textOf(file).split('\n');
  if (!pid) return false;
  return host !== hostname() || !(Number(pid) > 0) || processAlive(Number(pid));
}

/**
 * The lowest copy number of `key` on `worker` no run of this machine holds; held until `release()`. `root` (the
 * project) is where the locks go when the state folder cannot be written.
 */
export function takeFolder(c: Env, worker: Worker, key: string, root?: string): { index: number; release: () => void } {
  const usual = join(stateDir(c), 'folders');
  const inProject = root === undefined ? undefined : join(root, OWN_FOLDER, 'folders');
  const dirs = [usual, ...(inProject ? [inProject] : [])];
  const dir = canWrite(usual) ? usual : inProject !== undefined && projectWritable(root!, inProject) ? inProject : undefined;
  if (dir === undefined) {
    throw new SparehandError('IO', `cannot hold a copy of the project on ${worker.name}: ${dirs.join(' and ')} cannot be written here`);
  }
  const others = dirs.filter((d) => d !== dir);
  mkdirSync(dir, { recursive: true });
  const me = `${process.pid}\n${hostname()}\n`;
  for (let index = 0; ; index++) {
    const name = `${worker.name}.${key}.${index}`;
    // A run that keeps its locks in the other folder holds this copy.
    if (others.some((d) => heldBy(join(d, name)))) continue;
    const file = join(dir, name);
    const taken = takeIn(file, me);
    if (taken === undefined) continue;
    // Taken, then checked: two runs locking in different folders at once both see the other, and both move on.
    if (others.some((d) => heldBy(join(d, name)))) {
      taken();
      continue;
    }
    return { index, release: taken };
  }
}

/** Whether the project's own folder takes the locks (made with its .gitignore, so git does not see them). */
function projectWritable(root: string, dir: string): boolean {
  // Checked as every use of it is: never a link, never another user's.
  return 'dir' in ownFolder(root) && canWrite(dir);
}

/** Takes the lock `file` (or a stale one: its run is gone); the function that releases it, or undefined if held. */
function takeIn(file: string, me: string): (() => void) | undefined {
  // Written in full first, then linked into place: the lock never exists without its owner.
  const mine = `${file}.${process.pid}`;
  // Made anew: never written through a link planted under its name.
  replaceOwnFile(mine, me);
  try {
    linkSync(mine, file);
    return () => releaseIfMine(file, me);
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
        return () => releaseIfMine(file, me);
      } catch {
        /* another run won it: try the next */
      }
    }
    return undefined;
  } finally {
    unlinkSync(mine);
  }
}

function releaseIfMine(file: string, me: string): void {
  if (textOf(file) === me) unlinkSync(file);
}
