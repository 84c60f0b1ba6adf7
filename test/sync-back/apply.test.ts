// Applying changes here, from hand-made change lists (as a worker, honest or not, could send them).
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../lib/remote/results.js';
import { applyChanges } from '../../lib/sync-back/apply.js';
import { tempDir } from '../helpers/context.js';
import { files, md5, write } from '../helpers/project.js';

function setup(local: Record<string, string>) {
  const root = tempDir();
  for (const [p, s] of Object.entries(local)) write(root, p, s);
  const staging = tempDir();
  let n = 0;
  /** A change as the results parser makes it, content staged. */
  const change = (op: Change['op'], path: string, content?: string, base?: string): Change => {
    const c: Change = { op, type: 'f', mode: 0o644, mtime: 1_700_000_000, size: content?.length ?? 0, base: base === undefined ? undefined : md5(base), hash: content === undefined ? undefined : md5(content), path, target: '' };
    if (content !== undefined && op !== 'T') {
      c.staged = join(staging, String(n++));
      writeFileSync(c.staged, content);
    }
    return c;
  };
  const apply = (changes: Change[], foldsCase = false) =>
    applyChanges(changes, { root, conflictsDir: () => 'kept', scratch: () => staging, foldsCase: () => foldsCase });
  return { root, change, apply };
}

describe('applying the command\'s changes here', () => {
  it('each change applies only where the local file is still its base; otherwise the local file stays and the worker\'s is kept', () => {
    const { root, change, apply } = setup({ 'same.txt': 'v1', 'edited.txt': 'mine', 'del.txt': 'v1', 'del-edited.txt': 'mine', 'taken.txt': 'mine' });
    const r = apply([
      change('M', 'same.txt', 'v2', 'v1'),
      change('M', 'edited.txt', 'v2', 'v1'),
      change('D', 'del.txt', undefined, 'v1'),
      change('D', 'del-edited.txt', undefined, 'v1'),
      change('C', 'taken.txt', 'worker'),
      change('C', 'new/deep/file.txt', 'new'),
      change('M', 'gone-here.txt', 'v2', 'v1'),
    ]);
    expect(files(root)).toEqual({
      'same.txt': 'v2', 'edited.txt': 'mine', 'del-edited.txt': 'mine', 'taken.txt': 'mine', 'new/deep/file.txt': 'new',
      'kept/edited.txt': 'v2', 'kept/taken.txt': 'worker', 'kept/gone-here.txt': 'v2',
    });
    expect(r.conflicts.map((c) => [c.kind, c.path, c.saved])).toEqual([
      ['delete-kept', 'del-edited.txt', undefined],
      ['changed-here', 'edited.txt', 'kept/edited.txt'],
      ['deleted-here', 'gone-here.txt', 'kept/gone-here.txt'],
      ['exists-here', 'taken.txt', 'kept/taken.txt'],
    ]);
    expect(r.files).toBe(3);
    expect(lstatSync(join(root, 'same.txt')).mtimeMs).toBe(1_700_000_000_000);
  });

  it('nothing is written through a link here, whatever the worker sends', () => {
    const outside = tempDir();
    const { root, change, apply } = setup({ 'a.txt': 'a' });
    symlinkSync(outside, join(root, 'escape'));
    writeFileSync(join(outside, 'victim.txt'), 'precious');
    const r = apply([change('C', 'escape/new.txt', 'pwned'), change('M', 'escape/victim.txt', 'pwned', 'precious'), change('D', 'escape/victim.txt', undefined, 'precious')]);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('precious');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(r.conflicts.map((c) => c.kind)).toEqual(['blocked', 'deleted-here']);
  });

  it('a folder the command deleted goes only when empty: what is only here stays', () => {
    const { root, change, apply } = setup({ 'out/a.js': 'a', 'out/local-only.log': 'mine' });
    apply([change('D', 'out/a.js', undefined, 'a'), { ...change('D', 'out'), type: 'd' }]);
    expect(files(root)).toEqual({ 'out/local-only.log': 'mine' });
    const empty = setup({ 'gone/a.js': 'a' });
    empty.apply([empty.change('D', 'gone/a.js', undefined, 'a'), { ...empty.change('D', 'gone'), type: 'd' }]);
    expect(existsSync(join(empty.root, 'gone'))).toBe(false);
  });

  it('a folder replaced by a file, and a file by a folder', () => {
    const { root, change, apply } = setup({ 'x/inner.txt': 'i', 'y': 'file' });
    apply([
      change('D', 'x/inner.txt', undefined, 'i'),
      { ...change('D', 'x'), type: 'd' },
      change('C', 'x', 'now a file'),
      change('D', 'y', undefined, 'file'),
      { ...change('C', 'y'), type: 'd' },
      change('C', 'y/z.txt', 'z'),
    ]);
    expect(files(root)).toEqual({ x: 'now a file', 'y/z.txt': 'z' });
  });

  it('on a disk that ignores case, names that differ only in case are never merged, a rename by case only is (simulated folding)', () => {
    const { root, change, apply } = setup({ 'src/foo.ts': 'lower' });
    const r = apply([change('C', 'src/Foo.ts', 'upper'), change('C', 'src/Bar.ts', 'one'), change('C', 'src/bar.ts', 'two')], true);
    expect(r.conflicts.map((c) => [c.kind, c.path, c.detail])).toEqual([
      ['case', 'src/Foo.ts', 'src/foo.ts'],
      ['case', 'src/bar.ts', 'src/Bar.ts'],
    ]);
    expect(files(root)).toEqual({ 'src/foo.ts': 'lower', 'src/Bar.ts': 'one', 'kept/src/Foo.ts': 'upper', 'kept/src/bar.ts': 'two' });
    // A rename by case only applies where the file is still the one sent, and is a conflict where it changed here.
    const same = setup({ 'foo.ts': 'v1' });
    expect(same.apply([same.change('D', 'foo.ts', undefined, 'v1'), same.change('C', 'Foo.ts', 'v1')], true).conflicts).toEqual([]);
    expect(files(same.root)).toEqual({ 'Foo.ts': 'v1' });
    const edited = setup({ 'foo.ts': 'mine' });
    const renamed = edited.apply([edited.change('D', 'foo.ts', undefined, 'v1'), edited.change('C', 'Foo.ts', 'v1')], true);
    expect(renamed.conflicts.map((c) => [c.kind, c.path, c.detail])).toEqual([
      ['delete-kept', 'foo.ts', undefined],
      ['case', 'Foo.ts', 'foo.ts'],
    ]);
    expect(files(edited.root)).toEqual({ 'foo.ts': 'mine', 'kept/Foo.ts': 'v1' });
  });

  it('on a disk that ignores case, a new folder differing only in case from one here keeps all it holds apart (simulated folding)', () => {
    const { root, change, apply } = setup({ 'src/b.ts': 'here' });
    const folder = (path: string): Change => ({ ...change('C', path), type: 'd' });
    const r = apply([folder('Src'), change('C', 'Src/a.ts', 'a'), folder('Src/deep'), change('C', 'Src/deep/c.ts', 'c'), folder('Out'), change('C', 'Out/x.js', 'x'), folder('out'), change('C', 'out/y.js', 'y')], true);
    expect(r.conflicts.map((c) => [c.kind, c.path, c.detail])).toEqual([
      ['case', 'Src', 'src'],
      ['case', 'Src/a.ts', 'src/a.ts'],
      ['case', 'Src/deep', 'src/deep'],
      ['case', 'Src/deep/c.ts', 'src/deep/c.ts'],
      ['case', 'out', 'Out'],
      ['case', 'out/y.js', 'Out/y.js'],
    ]);
    expect(files(root)).toEqual({ 'src/b.ts': 'here', 'Out/x.js': 'x', 'kept/Src/a.ts': 'a', 'kept/Src/deep/c.ts': 'c', 'kept/out/y.js': 'y' });
  });

  it('the same content already here is no conflict; a mtime-only change applies only to the base', () => {
    const { root, change, apply } = setup({ 'built.js': 'same', 't.txt': 'v1', 't2.txt': 'mine' });
    mkdirSync(join(root, 'sub'));
    const r = apply([change('C', 'built.js', 'same'), { ...change('T', 't.txt', 'v1', 'v1'), mode: 0o755 }, change('T', 't2.txt', 'v1', 'v1')]);
    expect(r.conflicts).toEqual([]);
    expect(lstatSync(join(root, 't.txt')).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(root, 't2.txt')).mode & 0o777).not.toBe(0o755);
  });
});
