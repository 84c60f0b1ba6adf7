// The macOS watcher's choices (lib/watch/fsevents-records.ts), one FSEvents event at a time: every flag that means
// FSEvents lost track ends it, every other one becomes the record the Linux watcher would write. The flags' values
// are FSEvents' own, vendored from fsevents 2.3.3 (test/fixtures/fsevents/constants.json says where and when).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALWAYS_SKIPPED, type Decision, decide, FSE, insideSkipped } from '../../lib/watch/fsevents-records.js';
import { FIXTURES } from '../helpers/fixtures.js';

const vendored = JSON.parse(readFileSync(`${FIXTURES}fsevents/constants.json`, 'utf8')) as { constants: Record<string, number> };
const F = vendored.constants as Record<keyof typeof FSE | 'None', number>;
const root = '/Users/me/proj';
const w = { root, skip: new Set([...ALWAYS_SKIPPED, 'dist', 'deep/gen']) };
const at = (rel: string) => (rel ? `${root}/${rel}` : root);

describe('FSEvents flags', () => {
  it('are the values fsevents 2.3.3 exports', () => {
    const { None, ...rest } = F;
    expect(None).toBe(0);
    expect(rest).toEqual(FSE);
  });
});

describe('an FSEvents event becomes', () => {
  const file = F.ItemIsFile;
  const dir = F.ItemIsDir;
  const cases: [string, string, number, Decision][] = [
    // Lost track: whatever the path and whatever else is set.
    ['events dropped in this process', '', F.UserDropped, { lost: 'FSEvents dropped events (this process fell behind)' }],
    ['events dropped in the kernel', '', F.KernelDropped, { lost: 'the kernel dropped changes (FSEvents said so)' }],
    [
      'a folder to look at whole',
      'src',
      F.MustScanSubDirs | dir,
      { lost: 'FSEvents said a folder must be looked at whole (its events were coalesced or dropped)' },
    ],
    ['dropped and must scan, with a user drop', 'src', F.MustScanSubDirs | F.UserDropped, { lost: 'FSEvents dropped events (this process fell behind)' }],
    ['event ids wrapped', '', F.EventIdsWrapped, { lost: "FSEvents' event ids wrapped around" }],
    ['the root moved (WatchRoot)', '', F.RootChanged, { lost: 'the project folder was moved or deleted' }],
    ['a volume unmounted', 'vol', F.Unmount, { lost: 'a volume in the project was unmounted' }],
    ['a volume mounted', 'vol', F.Mount, { lost: 'a volume was mounted in the project' }],
    ['the project folder deleted', '', F.ItemRemoved | dir, { lost: 'the project folder was moved or deleted' }],
    ['the project folder renamed', '', F.ItemRenamed | dir, { lost: 'the project folder was moved or deleted' }],
    ['a loss on a path outside', '/elsewhere/x', F.KernelDropped, { lost: 'the kernel dropped changes (FSEvents said so)' }],
    // Content or attributes: `c`.
    ['a file written', 'src/a.js', F.ItemModified | file, { records: ['csrc/a.js'] }],
    ['a mode changed', 'src/a.js', F.ItemInodeMetaMod | file, { records: ['csrc/a.js'] }],
    ['an owner changed', 'src/a.js', F.ItemChangeOwner | file, { records: ['csrc/a.js'] }],
    ['an xattr changed', 'src/a.js', F.ItemXattrMod | file, { records: ['csrc/a.js'] }],
    ["Finder's info changed", 'src/a.js', F.ItemFinderInfoMod | file, { records: ['csrc/a.js'] }],
    ['a hard link written', 'src/a.js', F.ItemModified | file | F.ItemIsHardlink | F.ItemIsLastHardlink, { records: ['csrc/a.js'] }],
    ['the project folder touched', '', F.ItemInodeMetaMod | dir, { records: ['c'] }],
    ['a folder touched', 'src', F.ItemInodeMetaMod | dir, { records: ['csrc'] }],
    // Entries: `s`; a folder made, moved or cloned in is listed too.
    ['a file made', 'src/b.js', F.ItemCreated | file, { records: ['ssrc/b.js'] }],
    ['a file made and written (coalesced)', 'src/b.js', F.ItemCreated | F.ItemModified | file, { records: ['ssrc/b.js'] }],
    ['a file deleted', 'src/a.js', F.ItemRemoved | file, { records: ['ssrc/a.js'] }],
    ['a file renamed (either name)', 'src/a.js', F.ItemRenamed | file, { records: ['ssrc/a.js'] }],
    ['a file cloned', 'src/c.js', F.ItemCloned | file, { records: ['ssrc/c.js'] }],
    ['a symlink made', 'link', F.ItemCreated | F.ItemIsSymlink, { records: ['slink'] }],
    ['a folder made', 'new', F.ItemCreated | dir, { records: ['snew'], scan: 'new' }],
    ['a folder renamed (moved in, or its old name)', 'src/moved', F.ItemRenamed | dir, { records: ['ssrc/moved'], scan: 'src/moved' }],
    ['a folder cloned', 'copy', F.ItemCloned | dir, { records: ['scopy'], scan: 'copy' }],
    ['a folder deleted', 'old', F.ItemRemoved | dir, { records: ['sold'] }],
    ['a folder made and deleted (coalesced)', 'tmp', F.ItemCreated | F.ItemRemoved | dir, { records: ['stmp'], scan: 'tmp' }],
    // No item flag: something at that path changed; looked at again with its folder's entries.
    ['no flag at all', 'src', F.None, { records: ['ssrc'] }],
    ['a type and nothing else', 'src/a.js', file, { records: ['ssrc/a.js'] }],
    ['history done', 'src', F.HistoryDone, { records: [] }],
    ['its own event only', 'src', F.OwnEvent, { records: [] }],
    ['its own event, a file written', 'src/a.js', F.OwnEvent | F.ItemModified | file, { records: ['csrc/a.js'] }],
    // Not watched: sparehand's folder (but the barrier), git's objects and logs, the skipped folders.
    ['a barrier made', '.sparehand/watch/cookies/0a1b2c', F.ItemCreated | file, { barrier: '0a1b2c' }],
    ['a barrier moved in', '.sparehand/watch/cookies/0a1b2c', F.ItemRenamed | file, { barrier: '0a1b2c' }],
    ['a barrier made and deleted (coalesced)', '.sparehand/watch/cookies/0a1b2c', F.ItemCreated | F.ItemRemoved | file, { barrier: '0a1b2c' }],
    ['a barrier deleted', '.sparehand/watch/cookies/0a1b2c', F.ItemRemoved | file, { records: [] }],
    ['the cookies folder made', '.sparehand/watch/cookies', F.ItemCreated | dir, { records: [] }],
    ['below the cookies folder', '.sparehand/watch/cookies/x/y', F.ItemCreated | file, { records: [] }],
    ['the journal written', '.sparehand/watch/journal', F.ItemModified | file, { records: [] }],
    ['sparehand folder made', '.sparehand', F.ItemCreated | dir, { records: ['s.sparehand'], scan: '.sparehand' }],
    ['an object written', '.git/objects/ab/cdef', F.ItemCreated | file, { records: [] }],
    ['a reflog written', '.git/logs/HEAD', F.ItemModified | file, { records: [] }],
    ["git's index written", '.git/index', F.ItemRenamed | file, { records: ['s.git/index'] }],
    ['in an ignored folder', 'dist/out.js', F.ItemModified | file, { records: [] }],
    ['deep in an ignored folder', 'deep/gen/a/b.js', F.ItemCreated | file, { records: [] }],
    ['the ignored folder itself deleted', 'dist', F.ItemRemoved | dir, { records: ['sdist'] }],
    ['a name that only starts like an ignored one', 'dist2/a.js', F.ItemModified | file, { records: ['cdist2/a.js'] }],
    // Paths: FSEvents' trailing slash on a folder, a path outside, a name with two Unicode forms.
    ['a folder with a trailing slash', 'src/', F.ItemCreated | dir, { records: ['ssrc'], scan: 'src' }],
    ['a path outside the project', '/Users/me/other/a.js', F.ItemModified | file, { lost: 'FSEvents named a path outside the project (/Users/me/other/a.js)' }],
    [
      'a sibling whose name starts like the project',
      '/Users/me/proj2/a.js',
      F.ItemModified | file,
      { lost: 'FSEvents named a path outside the project (/Users/me/proj2/a.js)' },
    ],
    ['a name in NFD', 'caf\u0065\u0301.js', F.ItemCreated | file, { lost: 'a changed name has two Unicode forms (caf\u0065\u0301.js)' }],
    ['a name in NFC', 'caf\u00e9.js', F.ItemCreated | file, { lost: 'a changed name has two Unicode forms (caf\u00e9.js)' }],
    ['a name with one Unicode form', 'src/\u65e5\u672c.js', F.ItemModified | file, { records: ['csrc/\u65e5\u672c.js'] }],
  ];
  it.each(cases)('%s', (_, rel, flags, want) => {
    expect(decide(w, rel.startsWith('/') ? rel : at(rel), flags)).toEqual(want);
  });

  it('a project at the root of the file system', () => {
    expect(decide({ root: '/', skip: new Set(ALWAYS_SKIPPED) }, '/src/a.js', F.ItemModified | file)).toEqual({ records: ['csrc/a.js'] });
  });
});

describe('insideSkipped', () => {
  it('is true below a skipped folder only', () => {
    const skip = new Set(['dist', 'a/b']);
    expect([
      insideSkipped('dist', skip),
      insideSkipped('dist/x', skip),
      insideSkipped('a/b/c/d', skip),
      insideSkipped('a/bc', skip),
      insideSkipped('a', skip),
    ]).toEqual([false, true, true, false, false]);
  });
});
