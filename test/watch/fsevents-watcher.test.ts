// The macOS watcher (lib/watch/fsevents-watcher.ts, the built dist/fsevents-watcher.cjs) run whole on Linux through
// the code path a Mac takes: journal.ts told this machine is a Mac (SPAREHAND_PLATFORM_HERE) starts it with a
// stand-in of the `fsevents` package (test/fixtures/fsevents-stand-in/: fsevents' API on Node's fs.watch, one per folder,
// FSEvents' flags, and a loss said when told by a signal). What it journals must be trusted while it can vouch for
// everything, and never once FSEvents said it lost track, the watcher was killed or another took the journal.
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canWatch, changesSince, ensureWatcher, watcherHere } from '../../lib/watch/journal.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { answered, editsAreSaid, stopWatchers, watchedProject, watcherPid, watchersOf, watching as watchingWith } from './helpers.js';

const STAND_IN = join(FIXTURES, 'fsevents-stand-in');
const env = { PATH: process.env.PATH, SPAREHAND_WATCH: 'on', SPAREHAND_PLATFORM_HERE: 'darwin-arm64', SPAREHAND_FSEVENTS_MODULE: STAND_IN };
const roots: string[] = [];
afterAll(() => stopWatchers(roots));

const project = (): string => watchedProject(roots, 'sparehand-fsevents-');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const watching = (root: string, e: NodeJS.ProcessEnv = env) => watchingWith(root, e);

function journal(root: string): string {
  try {
    return readFileSync(join(root, '.sparehand', 'watch', 'journal'), 'utf8');
  } catch {
    return '';
  }
}

async function ended(root: string): Promise<void> {
  for (let i = 0; i < 300 && watchersOf(root).length > 0; i++) await sleep(10);
  expect(watchersOf(root)).toEqual([]);
}

describe('which watcher runs', () => {
  it('is the Perl one on Linux, the FSEvents one on a Mac, none elsewhere', () => {
    const on = (p: string) => watcherHere({ SPAREHAND_PLATFORM_HERE: p });
    expect([on('linux-x86_64-glibc'), on('linux-arm64-musl'), on('darwin-arm64'), on('darwin-x86_64'), on('linux-riscv64'), on('freebsd-x86_64')]).toEqual([
      'inotify',
      'inotify',
      'fsevents',
      'fsevents',
      undefined,
      undefined,
    ]);
    expect(canWatch({ SPAREHAND_PLATFORM_HERE: 'darwin-arm64' })).toBe(true);
    expect(canWatch({ SPAREHAND_PLATFORM_HERE: 'darwin-arm64', SPAREHAND_WATCH: 'off' })).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('the FSEvents watcher, with a stand-in fsevents', () => {
  it('is node running the built watcher, and names an edit, a file made in a folder made just now, and a deletion', async () => {
    const root = project();
    const mark = await watching(root);
    const pid = watcherPid(root) as number;
    expect(readlinkSync(`/proc/${pid}/exe`)).toBe(readlinkSync(`/proc/${process.pid}/exe`));
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toMatch(/^sparehand-watch /);
    await editsAreSaid(root, mark);
  });

  for (const [signal, why] of [
    ['SIGUSR1', 'FSEvents dropped events'],
    ['SIGUSR2', 'FSEvents said a folder must be looked at whole'],
  ] as const) {
    it(`cannot say once FSEvents said it lost track (${signal}: ${why}), and a new one can start`, async () => {
      const root = project();
      const mark = await watching(root);
      writeFileSync(join(root, 'src', 'a.js'), 'b\n');
      process.kill(watcherPid(root) as number, signal);
      for (let i = 0; i < 300 && !journal(root).includes('\0!'); i++) await sleep(10);
      expect(journal(root)).toContain(`\0!${why}`);
      expect(await changesSince(root, mark)).toBeUndefined();
      await ended(root);
      const second = await watching(root);
      expect(second.id).not.toBe(mark.id);
      expect(await changesSince(root, mark)).toBeUndefined();
    });
  }

  it('cannot say once it was killed, nor once another watcher took the journal', async () => {
    const root = project();
    const mark = await watching(root);
    process.kill(watcherPid(root) as number, 'SIGKILL');
    await ended(root);
    expect(await changesSince(root, mark)).toBeUndefined();
    const second = await watching(root);
    expect(await changesSince(root, mark)).toBeUndefined();
    expect(await answered(root, second)).toBeDefined();
  });

  it('ends when another watcher took the journal', async () => {
    const root = project();
    await watching(root);
    const first = watcherPid(root) as number;
    writeFileSync(join(root, '.sparehand', 'watch', 'journal'), 'sparehand-watch 1 another 1 x\n');
    // It looks every 30 s.
    for (let i = 0; i < 400 && watchersOf(root).includes(first); i++) await sleep(100);
    expect(watchersOf(root)).not.toContain(first);
  }, 60_000);

  it('is no watcher where fsevents cannot be loaded: it says so once, and is not started again', async () => {
    const root = project();
    const none = { ...env, SPAREHAND_FSEVENTS_MODULE: join(tempDir(), 'no-such-module') };
    ensureWatcher(root, [], none);
    for (let i = 0; i < 300 && !/!cannot watch here/.test(journal(root)); i++) await sleep(10);
    expect(journal(root)).toMatch(/\n!cannot watch here: the fsevents module cannot be loaded \(Cannot find module/);
    expect(await changesSince(root, undefined)).toBeUndefined();
    const before = journal(root);
    ensureWatcher(root, [], none);
    await sleep(300);
    expect(journal(root)).toBe(before);
    expect(watchersOf(root)).toEqual([]);
  });
});
