import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../lib/run/duration.js';
import { parseItems, planBack, writtenSince } from '../../lib/run/sync-back.js';
import { tempDir } from '../helpers/context.js';

describe('reading rsync\'s dry run', () => {
  it('parses %i|%M|%l|%n lines, names with | and escaped bytes', () => {
    const text = '>f+++++++++|2026/11/29-10:00:05|12|dist/out.js\n*deleting  |1970/01/01-00:00:00|0|old.txt\ncd+++++++++|2026/11/29-10:00:05|4096|dist/\n>f.st......|2026/11/29-10:00:06|3|a|b\\#012c.txt\n';
    expect(parseItems(text)).toEqual([
      { change: '>f+++++++++', mtime: new Date(2026, 10, 29, 10, 0, 5).getTime() / 1000, size: 12, path: 'dist/out.js' },
      { change: '*deleting', mtime: new Date(1970, 0, 1).getTime() / 1000, size: 0, path: 'old.txt' },
      { change: 'cd+++++++++', mtime: new Date(2026, 10, 29, 10, 0, 5).getTime() / 1000, size: 4096, path: 'dist/' },
      { change: '>f.st......', mtime: new Date(2026, 10, 29, 10, 0, 6).getTime() / 1000, size: 3, path: 'a|b\nc.txt' },
    ]);
  });
});

describe('deciding what comes back', () => {
  it('fetches and deletes what only the command changed; keeps what changed here; reports real conflicts only', async () => {
    const root = tempDir();
    const old = new Date('2026-01-01T00:00:00Z');
    const touchOld = (p: string) => utimesSync(join(root, p), old, old);
    for (const f of ['kept.txt', 'gone.txt', 'edited-both.txt', 'edited-here-only.txt', 'deleted-here.txt']) {
      writeFileSync(join(root, f), 'v1\n');
      touchOld(f);
    }
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist', 'old-build.js'), 'old\n');
    touchOld('dist/old-build.js');
    touchOld('dist');
    touchOld('.');
    const startedMs = Date.now();
    // While the command runs, here:
    writeFileSync(join(root, 'edited-both.txt'), 'mine\n');
    writeFileSync(join(root, 'edited-here-only.txt'), 'mine\n');
    writeFileSync(join(root, 'new-here.txt'), 'mine\n');
    rmSync(join(root, 'deleted-here.txt'));
    const oldSec = old.getTime() / 1000;
    const now = Math.floor(Date.now() / 1000);
    const items = [
      { change: '>f+++++++++', mtime: now, size: 5, path: 'dist/new.js' },
      { change: '>f.st......', mtime: now, size: 5, path: 'dist/old-build.js' },
      { change: '>f.st......', mtime: now, size: 6, path: 'kept.txt' },
      { change: '*deleting', mtime: undefined, size: 0, path: 'gone.txt' },
      { change: '>f.st......', mtime: now, size: 9, path: 'edited-both.txt' },
      { change: '>f.st......', mtime: oldSec, size: 3, path: 'edited-here-only.txt' },
      { change: '>f+++++++++', mtime: oldSec, size: 3, path: 'deleted-here.txt' },
      { change: '>f+++++++++', mtime: now, size: 3, path: 'made-by-command.txt' },
      { change: '*deleting', mtime: undefined, size: 0, path: 'new-here.txt' },
      { change: 'cd+++++++++', mtime: now, size: 0, path: 'dist/' },
      { change: '*deleting', mtime: undefined, size: 0, path: 'olddir/' },
    ];
    expect(await planBack(items, root, startedMs)).toEqual({
      fetch: ['dist/new.js', 'dist/old-build.js', 'kept.txt', 'made-by-command.txt'],
      remove: ['gone.txt'],
      removeDirs: ['olddir'],
      conflicts: ['edited-both.txt'],
    });
  });
});

describe('written since the run started', () => {
  it('counts times just before the start (coarse clocks) and whole-second times in the same second', () => {
    const start = 1_000_000_500;
    expect([writtenSince(start + 1, start), writtenSince(start - 10, start), writtenSince(start - 400, start)]).toEqual([true, true, false]);
    expect([writtenSince(1_000_000_000, start), writtenSince(999_999_000, start)]).toEqual([true, false]);
  });
});

describe('--timeout durations', () => {
  it('reads s, m, h, ms, combinations and plain seconds; refuses the rest', () => {
    expect([parseDuration('90s'), parseDuration('10m'), parseDuration('1h30m'), parseDuration('500ms'), parseDuration('45')]).toEqual([
      90_000, 600_000, 5_400_000, 500, 45_000,
    ]);
    expect(() => parseDuration('soon')).toThrow('bad duration "soon"');
    expect(() => parseDuration('10 m')).toThrow();
  });
});
