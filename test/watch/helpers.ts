// The watchers (lib/watch/) a test starts: projects to watch, a watcher ready and asked, the common case both watchers
// must pass; found by their process name, stopped when the test file ends.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changesSince, ensureWatcher, type WatchMark } from '../../lib/watch/journal.js';
import { expect } from 'vitest';
import { tempDir } from '../helpers/context.js';

/** A git project with one file in src/, its root noted in `roots` (for stopWatchers at the file's end). */
export function watchedProject(roots: string[], prefix = 'sparehand-watcher-'): string {
  const root = tempDir(prefix);
  roots.push(root);
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.js'), 'a\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}

/**
 * What changed since `mark`, as a run asks it, asked again while the watcher is slow to pass the barrier (a run then
 * walks; a loaded machine makes it slow): undefined only when it keeps not answering for 5 s.
 */
export async function answered(root: string, mark: WatchMark | undefined): Promise<Awaited<ReturnType<typeof changesSince>>> {
  const end = Date.now() + 5_000;
  for (;;) {
    const got = await changesSince(root, mark);
    if (got || Date.now() > end) return got;
    // (No answer can also come at once, from a watcher gone: not asked again in a tight loop.)
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The watchers' common case, on a watched `root` from its `mark`: an edit, a file made in a folder made just now, and
 * a deletion are all said; nothing of sparehand's own folder or of git's objects; asked again, nothing more.
 */
export async function editsAreSaid(root: string, mark: WatchMark): Promise<void> {
  writeFileSync(join(root, 'src', 'a.js'), 'b\n');
  mkdirSync(join(root, 'new', 'deeper'), { recursive: true });
  writeFileSync(join(root, 'new', 'deeper', 'x.js'), 'x\n');
  execFileSync('rm', [join(root, 'src', 'a.js')]);
  const since = await answered(root, mark);
  expect(since).toBeDefined();
  const said = [...(since?.moved ?? []), ...(since?.changed ?? [])];
  expect([...(since?.changed ?? [])]).toContain('src/a.js');
  expect([...(since?.moved ?? [])]).toEqual(expect.arrayContaining(['new', 'src/a.js']));
  // What was made in the new folder before its watch was in place is listed by the watcher itself, or was seen.
  expect(said.some((p) => p.startsWith('new/deeper'))).toBe(true);
  expect(said.filter((p) => p.startsWith('.sparehand/') || p.startsWith('.git/objects/'))).toEqual([]);
  const again = await answered(root, since?.mark);
  expect(again && [...again.changed, ...again.moved]).toEqual([]);
}

/** A watcher started for `root` (with `env`) that has said it is ready: the mark it gives now. */
export async function watching(root: string, env: NodeJS.ProcessEnv): Promise<WatchMark> {
  for (let i = 0; i < 300; i++) {
    ensureWatcher(root, [], env);
    const now = await changesSince(root, undefined);
    if (now) return now.mark;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the watcher never said it was ready');
}

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
