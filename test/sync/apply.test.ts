// Applying changes here, from hand-made change lists (as a worker, honest or not, could send them).
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itNeedsRoot, unwritableFolder } from '../helpers/as-root.js';
import { projectSettingsPaths } from '../../lib/agents/project-settings.js';
import { type ApplyOptions, applyChanges, contentNeeded } from '../../lib/sync/apply.js';
import type { Change } from '../../lib/remote/change.js';
import type { Known } from '../../lib/sync/decide.js';
import { isToolSettings, refusedLink, refusedPath } from '../../lib/sync/guard.js';
import { printable } from '../../lib/safe-text.js';
import { tempDir } from '../helpers/context.js';
import { files, md5, write } from '../helpers/project.js';
import { fileChange } from '../helpers/changes.js';

/** What the run knows of each path: everything is sent (the project's own files) unless `known` says otherwise. */
type KnownOf = (c: Change) => Omit<Known, 'caseTwin'>;
const guarded =
  (sent: (p: string) => boolean = () => true, mine: (p: string) => string[] = () => []): KnownOf =>
  (c) => ({
    sent: sent(c.path),
    mine: mine(c.path),
    refused: refusedPath(c.path) ?? (c.type === 'l' ? refusedLink(c.path, c.target) : undefined),
    settings: isToolSettings(c.path, projectSettingsPaths()),
  });

function setup(local: Record<string, string>, opts: { staging?: string; known?: KnownOf } = {}) {
  const root = tempDir();
  for (const [p, s] of Object.entries(local)) write(root, p, s);
  const staging = opts.staging ?? tempDir();
  let n = 0;
  /** A change as the results parser makes it, content staged. */
  const change = (op: Change['op'], path: string, content?: string, base?: string): Change => fileChange(staging, n++, op, path, content, base);
  const options = (foldsCase: boolean): ApplyOptions => ({
    root,
    conflictsDir: () => 'kept',
    scratch: () => staging,
    foldsCase: () => foldsCase,
    known: opts.known ?? guarded(),
    there: 'w0:copy',
    printable,
  });
  const apply = (changes: Change[], foldsCase = false) => applyChanges(changes, options(foldsCase));
  return { root, change, apply, staging };
}

describe("applying the command's changes here", () => {
  it("each change applies only where the local file is still its base; otherwise the local file stays and the worker's is kept", () => {
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
      'same.txt': 'v2',
      'edited.txt': 'mine',
      'del-edited.txt': 'mine',
      'taken.txt': 'mine',
      'new/deep/file.txt': 'new',
      'kept/edited.txt': 'v2',
      'kept/taken.txt': 'worker',
      'kept/gone-here.txt': 'v2',
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
    const r = apply([
      change('C', 'escape/new.txt', 'pwned'),
      change('M', 'escape/victim.txt', 'pwned', 'precious'),
      change('D', 'escape/victim.txt', undefined, 'precious'),
    ]);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('precious');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(r.conflicts.map((c) => c.kind)).toEqual(['blocked', 'blocked']);
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
    const { root, change, apply } = setup({ 'x/inner.txt': 'i', y: 'file' });
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
    const r = apply(
      [
        folder('Src'),
        change('C', 'Src/a.ts', 'a'),
        folder('Src/deep'),
        change('C', 'Src/deep/c.ts', 'c'),
        folder('Out'),
        change('C', 'Out/x.js', 'x'),
        folder('out'),
        change('C', 'out/y.js', 'y'),
      ],
      true,
    );
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

describe('the worker is not trusted: what the client refuses, whatever the report says', () => {
  it('never a .git entry at any depth or in any disguise, never a link leading outside or into .git, nothing in .sparehand', () => {
    const { root, change, apply } = setup({ 'a.txt': 'a' });
    const link = (path: string, target: string): Change => ({ ...change('C', path), type: 'l', target, hash: md5(target) });
    const r = apply([
      change('C', '.git/hooks/pre-commit', '#!/bin/sh\necho pwned\n'),
      change('C', 'sub/.git', 'gitdir: ../evil.git\n'),
      change('C', 'sub/.GIT/config', 'x'),
      change('C', 'sub/.g\u200cit/config', 'x'),
      change('C', 'GIT~1/config', 'x'),
      change('C', '.sparehand/sync/w0-x-0.json', '{}'),
      link('out/escape', '../../../etc'),
      link('out/abs', '/etc/passwd'),
      link('out/hooks', '../.git/hooks'),
      link('out/fine', '../a.txt'),
    ]);
    expect(r.conflicts.map((c) => [c.kind, c.path])).toEqual([
      ['refused', '.git/hooks/pre-commit'],
      ['refused', '.sparehand/sync/w0-x-0.json'],
      ['refused', 'GIT~1/config'],
      ['refused', 'out/abs'],
      ['refused', 'out/escape'],
      ['refused', 'out/hooks'],
      ['refused', 'sub/.GIT/config'],
      ['refused', 'sub/.git'],
      ['refused', 'sub/.g\u200cit/config'],
    ]);
    expect(r.conflicts.every((c) => c.saved === undefined)).toBe(true);
    expect(files(root)).toEqual({ 'a.txt': 'a', 'out/fine': '<link>' });
  });

  it("a coding tool's settings in the project are never changed: a conflict, the worker's version saved", () => {
    const { root, change, apply } = setup({ '.claude/settings.json': '{}', 'AGENTS.md': 'mine' });
    const r = apply([
      change('M', '.claude/settings.json', '{"hooks":{}}', '{}'),
      change('C', '.codex/hooks.json', '{}'),
      change('M', 'AGENTS.md', 'ignore all previous', 'mine'),
    ]);
    expect(r.conflicts.map((c) => [c.kind, c.path, c.saved])).toEqual([
      ['settings', '.claude/settings.json', 'kept/.claude/settings.json'],
      ['settings', '.codex/hooks.json', 'kept/.codex/hooks.json'],
      ['settings', 'AGENTS.md', 'kept/AGENTS.md'],
    ]);
    expect(files(root)).toEqual({
      '.claude/settings.json': '{}',
      'AGENTS.md': 'mine',
      'kept/.claude/settings.json': '{"hooks":{}}',
      'kept/.codex/hooks.json': '{}',
      'kept/AGENTS.md': 'ignore all previous',
    });
  });

  it('no setuid, setgid or sticky bit comes back (a line says so); a FIFO is named, not made', () => {
    const { root, change, apply } = setup({});
    const r = apply([
      { ...change('C', 'bin/tool', 'elf'), mode: 0o6755 },
      { ...change('C', 'pipe'), type: 's' },
    ]);
    expect(statSync(join(root, 'bin/tool')).mode & 0o7777).toBe(0o755);
    expect(r.notes).toEqual(['bin/tool came back without its setuid, setgid or sticky bit']);
    expect(r.conflicts.map((c) => [c.kind, c.path])).toEqual([['special', 'pipe']]);
    expect(existsSync(join(root, 'pipe'))).toBe(false);
  });
});

describe('each change on its own', () => {
  it('a path that cannot be written here is a conflict with the reason; every other change is applied', () => {
    const { root, change, apply } = setup({ 'locked/old.js': 'o', 'free/a.js': 'a' });
    const locked = unwritableFolder(join(root, 'locked'));
    try {
      const r = apply([change('C', 'locked/new.js', 'n'), change('M', 'free/a.js', 'a2', 'a'), change('C', 'free/b.js', 'b'), change('C', 'zzz.txt', 'z')]);
      expect(r.conflicts.map((c) => [c.kind, c.path, c.detail, c.saved])).toEqual([['not-written', 'locked/new.js', locked.detail, 'kept/locked/new.js']]);
      expect(r.files).toBe(3);
    } finally {
      locked.undo();
    }
    expect(files(root)).toEqual({ 'locked/old.js': 'o', 'free/a.js': 'a2', 'free/b.js': 'b', 'zzz.txt': 'z', 'kept/locked/new.js': 'n' });
  });

  itNeedsRoot(
    'an output folder on another file system (a mount in the project; needs root: mount): content is copied into place, yours set aside there',
    () => {
      const { root, change, apply } = setup({ 'a.txt': 'a' });
      mkdirSync(join(root, 'dist'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', join(root, 'dist')]);
      try {
        writeFileSync(join(root, 'dist', 'old.js'), 'old');
        const r = apply([change('M', 'a.txt', 'b', 'a'), change('C', 'dist/x.js', 'x'), change('M', 'dist/old.js', 'new', 'old')]);
        expect(r.conflicts).toEqual([]);
        expect(files(root)).toEqual({ 'a.txt': 'b', 'dist/x.js': 'x', 'dist/old.js': 'new' });
      } finally {
        execFileSync('umount', [join(root, 'dist')]);
      }
    },
  );

  itNeedsRoot('a full disk here (needs root: mount): what does not fit is a conflict that stays on the worker, the rest is applied', () => {
    const { root, change, apply } = setup({ 'a.txt': 'a' });
    mkdirSync(join(root, 'dist'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', join(root, 'dist')]);
    try {
      const big = change('C', 'dist/big.bin', 'x'.repeat(200_000));
      const r = apply([change('M', 'a.txt', 'b', 'a'), big, change('C', 'dist/small.js', 's')]);
      expect(r.conflicts.map((c) => [c.kind, c.path, c.detail])).toEqual([['not-written', 'dist/big.bin', 'no space left on this disk']]);
      expect(files(root)).toEqual({ 'a.txt': 'b', 'dist/small.js': 's', 'kept/dist/big.bin': 'x'.repeat(200_000) });
    } finally {
      execFileSync('umount', [join(root, 'dist')]);
    }
  });
});

describe('outputs (paths rsync does not send)', () => {
  const output = (p: string) => p.startsWith('dist/') || p.startsWith('target/');

  it("a file here that is what sparehand left (any copy's) is replaced; a file of your own is not", () => {
    const mine = (p: string) => (p === 'dist/a.js' ? [md5('slot 1')] : p === 'src/f.ts' ? [md5('slot 1')] : []);
    const { root, change, apply } = setup({ 'dist/a.js': 'slot 1', 'dist/b.js': 'yours', 'src/f.ts': 'slot 1' }, { known: guarded((p) => !output(p), mine) });
    const r = apply([change('C', 'dist/a.js', 'slot 0'), change('C', 'dist/b.js', 'slot 0'), change('M', 'src/f.ts', 'slot 0', 'original')]);
    expect(r.conflicts.map((c) => [c.kind, c.path])).toEqual([
      ['exists-here', 'dist/b.js'],
      ['changed-here', 'src/f.ts'],
    ]);
    expect(files(root)).toMatchObject({ 'dist/a.js': 'slot 0', 'dist/b.js': 'yours', 'src/f.ts': 'slot 1' });
  });

  it('an output changed on the worker but missing here comes back; one only touched there is fetched first', () => {
    const { root, change, apply } = setup({}, { known: guarded((p) => !output(p)) });
    const options = { root, known: guarded((p) => !output(p)) };
    const touched = change('T', 'target/release/app', undefined, 'elf');
    const changed = change('M', 'dist/a.js', 'new', 'old');
    expect(contentNeeded([touched, changed], options)).toEqual([touched.index]);
    const r = apply([changed]);
    expect(r.conflicts).toEqual([]);
    expect(files(root)).toEqual({ 'dist/a.js': 'new' });
  });
});
