// The watcher (lib/watch/) is trusted only while it can vouch for everything: each test takes that away — the kernel
// drops changes (its queue overflows while the watcher is stopped), the watcher is killed, another one takes the
// journal — and the answer must then be "cannot say", never an empty list. A real perl watcher, real inotify.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canWatch, changesSince, ensureWatcher } from '../../lib/watch/journal.js';
import { answered, editsAreSaid, stopWatchers, watchedProject, watcherPid, watchersOf, watching as watchingWith } from './helpers.js';

const env = { PATH: process.env.PATH, SPAREHAND_WATCH: 'on' };
const roots: string[] = [];
afterAll(() => stopWatchers(roots));

const project = (): string => watchedProject(roots, 'sparehand-watcher-');

const watching = (root: string, e: NodeJS.ProcessEnv = env) => watchingWith(root, e);

const journal = (root: string) => readFileSync(join(root, '.sparehand', 'watch', 'journal'), 'latin1');

describe.runIf(canWatch(env))('the watcher', () => {
  it('names an edit, a file made in a folder made just now, and a deletion', async () => {
    const root = project();
    await editsAreSaid(root, await watching(root));
  });

  it('cannot say, once the kernel dropped changes (its queue overflowed while the watcher was stopped)', async () => {
    const root = project();
    const mark = await watching(root);
    const pid = watcherPid(root) as number;
    const limit = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    process.kill(pid, 'SIGSTOP');
    try {
      // Each write is three events (made, modified, closed): more than the queue holds.
      for (let i = 0; i < Math.ceil(limit / 3) + 500; i++) writeFileSync(join(root, 'src', `f${i}.js`), 'x');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(await changesSince(root, mark)).toBeUndefined();
    for (let i = 0; i < 200 && !journal(root).includes('\0!'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(journal(root)).toMatch(/\0!the kernel dropped changes/);
    // It has ended, and a new one can start.
    for (let i = 0; i < 200 && watchersOf(root).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(watchersOf(root)).toEqual([]);
    expect(await watching(root)).toBeDefined();
  }, 60_000);

  it('cannot say once it was killed, nor once another watcher took the journal', async () => {
    const root = project();
    const mark = await watching(root);
    process.kill(watcherPid(root) as number, 'SIGKILL');
    for (let i = 0; i < 200 && watchersOf(root).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await changesSince(root, mark)).toBeUndefined();
    const second = await watching(root);
    expect(second.id).not.toBe(mark.id);
    expect(await changesSince(root, mark)).toBeUndefined();
    expect(await answered(root, second)).toBeDefined();
  });

  it('cannot say when a changed name is not UTF-8 (Node would look at another name)', async () => {
    const root = project();
    const mark = await watching(root);
    writeFileSync(Buffer.from(`${join(root, 'src')}/caf\xe9.js`, 'latin1'), 'x');
    expect(await changesSince(root, mark)).toBeUndefined();
  });

  it("starts none inside a coding tool's sandbox (where it would end with the command)", async () => {
    const root = project();
    // Claude Code's sandbox marker (lib/agents/claude-code.ts): bubblewrap with a pid namespace of its own.
    ensureWatcher(root, [], { ...env, SANDBOX_RUNTIME: '1' });
    await new Promise((r) => setTimeout(r, 300));
    expect(watchersOf(root)).toEqual([]);
    ensureWatcher(root, [], env);
    await watching(root);
    expect(watchersOf(root)).toHaveLength(1);
  });

  it('starts one watcher, however many runs ask at once', async () => {
    const root = project();
    for (let i = 0; i < 5; i++) ensureWatcher(root, [], env);
    await watching(root);
    expect(watchersOf(root)).toHaveLength(1);
  });
});
