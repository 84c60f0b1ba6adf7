// The watchers (lib/watch/) a test starts: found by their process name, stopped when the test file ends.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The pid in `root`'s journal header, if any. */
export function watcherPid(root: string): number | undefined {
  try {
    const m = /^sparehand-watch 1 \S+ (\d+) /.exec(readFileSync(join(root, '.sparehand', 'watch', 'journal'), 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The pids of the watchers running for `root` (their process name is `sparehand-watch ROOT`). */
export function watchersOf(root: string): number[] {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-f', '-x', `sparehand-watch ${root}`], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out.split('\n').filter(Boolean).map(Number);
}

/** Stops every watcher of these projects. */
export function stopWatchers(roots: Iterable<string>): void {
  for (const root of roots)
    for (const pid of watchersOf(root)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
}
