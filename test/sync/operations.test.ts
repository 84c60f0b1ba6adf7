// Each of the apply's operations on its own: given the entry as it was judged, it writes only where that entry is
// still there, and otherwise says so and leaves what is here as it is (the race the apply's re-checks guard).
import { linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Change } from '../../lib/remote/change.js';
import { type Folders, openFolders } from '../../lib/sync/open-folders.js';
import { type Calls, type Seen, operations } from '../../lib/sync/operations.js';
import { tempDir } from '../helpers/context.js';
import { files, md5 } from '../helpers/project.js';

const opened: Folders[] = [];
afterEach(() => {
  for (const f of opened.splice(0)) f.close();
});

/** A write here staged in the instant before (or right after) the operation's next link or rename of a name. */
function racing() {
  const race: { before?: (to: string) => void; after?: (from: string) => void } = {};
  const once = (at: string, write: () => void) => (name: string) => {
    if (name !== at) return;
    race.before = race.after = undefined;
    write();
  };
  const fs: Partial<Calls> = {
    linkSync: (existing, name) => {
      race.before?.(name);
      linkSync(existing, name);
    },
    renameSync: (from, to) => {
      race.before?.(to);
      renameSync(from, to);
      race.after?.(from);
    },
  };
  return {
    fs,
    /** Right before something is linked or renamed to `at`. */
    before: (at: string, write: () => void) => {
      race.before = once(at, write);
    },
    /** Right after what is at `at` is renamed away. */
    after: (at: string, write: () => void) => {
      race.after = once(at, write);
    },
  };
}

const noHardLinks = () => {
  throw Object.assign(new Error('no hard links on this file system'), { code: 'EPERM' });
};

function setup(local: Record<string, string>, fs?: Partial<Calls>) {
  const root = tempDir();
  const staging = tempDir();
  for (const [p, s] of Object.entries(local)) writeFileSync(join(root, p), s);
  const folders = openFolders(root);
  const saving = openFolders(root);
  opened.push(folders, saving);
  const bits: string[] = [];
  const ops = operations({
    folders,
    saving: () => saving,
    scratch: () => ({ path: staging, at: staging }),
    conflictsDir: () => 'kept',
    withoutSpecialBits: (c) => bits.push(c.path),
    fs,
  });
  let n = 0;
  const change = (op: Change['op'], path: string, content?: string, extra: Partial<Change> = {}): Change => {
    const c: Change = {
      index: n,
      op,
      type: 'f',
      base: undefined,
      mode: 0o644,
      mtime: 1_700_000_000,
      size: content?.length ?? 0,
      hash: content && md5(content),
      path,
      target: '',
      ...extra,
    };
    if (content !== undefined) writeFileSync((c.staged = join(staging, `staged-${n}`)), content);
    n++;
    return c;
  };
  /** The entry at `path` as the apply judges it (reached through its opened folder). */
  const judged = (path: string): Seen => {
    const at = join(folders.folder('', false), path);
    return { at, st: lstatSync(at) };
  };
  /** An edit here after the judgement: new content, in place (the same inode). */
  const edit = (path: string, content: string) => writeFileSync(join(root, path), content);
  return { root, ops, change, judged, edit, bits };
}

describe("the apply's operations", () => {
  it("replace: the worker's file over the one judged; a conflict, and yours untouched, when it changed in place or was replaced", () => {
    const t = setup({ 'a.txt': 'v1', 'b.txt': 'v1', 'c.txt': 'v1' });
    expect(t.ops.replace(t.change('M', 'a.txt', 'v2'), t.judged('a.txt'))).toEqual({ outcome: 'applied', counts: 'file' });
    const b = t.judged('b.txt');
    t.edit('b.txt', 'mine, longer');
    expect(t.ops.replace(t.change('M', 'b.txt', 'v2'), b)).toEqual({ outcome: 'conflict', kind: 'changed-here', save: true });
    const c = t.judged('c.txt');
    // An editor's save by rename, the same size: another inode at the path.
    writeFileSync(join(t.root, 'c.new'), 'v9');
    renameSync(join(t.root, 'c.new'), join(t.root, 'c.txt'));
    expect(t.ops.replace(t.change('M', 'c.txt', 'v2'), c)).toEqual({ outcome: 'conflict', kind: 'changed-here', save: true });
    expect(files(t.root)).toEqual({ 'a.txt': 'v2', 'b.txt': 'mine, longer', 'c.txt': 'v9' });
    expect(lstatSync(join(t.root, 'a.txt')).mtimeMs).toBe(1_700_000_000_000);
  });

  it('touch: mtime and mode on the file judged only; skipped when it changed', () => {
    const t = setup({ 'a.txt': 'v1', 'b.txt': 'v1' });
    expect(t.ops.touch(t.change('T', 'a.txt', undefined, { mode: 0o4755 }), t.judged('a.txt'))).toEqual({ outcome: 'applied', counts: 'touch' });
    expect([statSync(join(t.root, 'a.txt')).mode & 0o7777, statSync(join(t.root, 'a.txt')).mtimeMs]).toEqual([0o755, 1_700_000_000_000]);
    expect(t.bits).toEqual(['a.txt']);
    const b = t.judged('b.txt');
    utimesSync(join(t.root, 'b.txt'), 5, 5);
    expect(t.ops.touch(t.change('T', 'b.txt', undefined, { mode: 0o755 }), b)).toEqual({ outcome: 'skipped' });
    expect(statSync(join(t.root, 'b.txt')).mode & 0o777).not.toBe(0o755);
  });

  it('delete: the file judged goes; a conflict, and yours stays, when it changed', () => {
    const t = setup({ 'a.txt': 'v1', 'b.txt': 'v1' });
    expect(t.ops.delete(t.change('D', 'a.txt'), t.judged('a.txt'))).toEqual({ outcome: 'applied', counts: 'file' });
    const b = t.judged('b.txt');
    t.edit('b.txt', 'mine, longer');
    expect(t.ops.delete(t.change('D', 'b.txt'), b)).toEqual({ outcome: 'conflict', kind: 'delete-kept', save: false });
    expect(files(t.root)).toEqual({ 'b.txt': 'mine, longer' });
  });

  it('create a file or a link: never over anything there; a folder where a file stands is blocked', () => {
    const t = setup({ 'taken.txt': 'mine', file: 'x' });
    expect(t.ops.createFile(t.change('C', 'new/deep.txt', 'n'))).toEqual({ outcome: 'applied', counts: 'file' });
    expect(t.ops.createFile(t.change('C', 'taken.txt', 'worker'))).toEqual({ outcome: 'conflict', kind: 'exists-here', save: true });
    expect(t.ops.createLink(t.change('C', 'link', undefined, { type: 'l', target: 'new/deep.txt' }))).toEqual({ outcome: 'applied', counts: 'file' });
    symlinkSync('elsewhere', join(t.root, 'mine-link'));
    expect(t.ops.createLink(t.change('C', 'mine-link', undefined, { type: 'l', target: 'x' }))).toEqual({
      outcome: 'conflict',
      kind: 'exists-here',
      save: true,
    });
    expect(t.ops.createFile(t.change('C', 'file/in.txt', 'i'))).toEqual({ outcome: 'conflict', kind: 'blocked', save: true });
    expect(files(t.root)).toMatchObject({ 'taken.txt': 'mine', file: 'x', 'new/deep.txt': 'n' });
    expect(readFileSync(join(t.root, 'link'), 'utf8')).toBe('n');
  });

  it("folders: made where nothing is, removed only when empty; the worker's version of a conflict is kept beside any earlier one", () => {
    const t = setup({ file: 'x' });
    expect(t.ops.makeFolder(t.change('C', 'd', undefined, { type: 'd' }))).toEqual({ outcome: 'applied', counts: 'folder' });
    expect(t.ops.makeFolder(t.change('C', 'file/d', undefined, { type: 'd' }))).toEqual({ outcome: 'conflict', kind: 'blocked', save: false });
    mkdirSync(join(t.root, 'full'));
    writeFileSync(join(t.root, 'full', 'only-here.log'), 'mine');
    expect(t.ops.removeFolder(t.judged('full'))).toEqual({ outcome: 'skipped' });
    expect(t.ops.removeFolder(t.judged('d'))).toEqual({ outcome: 'applied', counts: 'folder' });
    expect(t.ops.save(t.change('M', 'file', 'one'))).toBe('kept/file');
    expect(t.ops.save(t.change('M', 'file', 'two'))).toBe('kept/file~2');
    expect(files(t.root)).toEqual({ file: 'x', 'full/only-here.log': 'mine', 'kept/file': 'one', 'kept/file~2': 'two' });
  });

  it('delete: yours, changed here while something new took its path, is kept in the conflicts folder, never left in the scratch folder', () => {
    const race = racing();
    const t = setup({ 'b.txt': 'v1' }, race.fs);
    const b = t.judged('b.txt');
    t.edit('b.txt', 'mine, longer');
    // The instant yours is moved aside, an editor's save by rename puts a new b.txt at its path.
    race.after(b.at, () => writeFileSync(join(t.root, 'b.txt'), 'new here'));
    const bDone = t.ops.delete(t.change('D', 'b.txt'), b);
    expect(files(t.root)).toEqual({ 'b.txt': 'new here', 'kept/b.txt': 'mine, longer' });
    expect(bDone).toEqual({ outcome: 'conflict', kind: 'delete-kept', save: false, yours: 'kept/b.txt' });
  });

  it('delete: yours, changed here, goes back only where nothing was made meanwhile (a link, never a rename over it), else it is kept', () => {
    const race = racing();
    const t = setup({ 'b.txt': 'v1' }, race.fs);
    const b = t.judged('b.txt');
    t.edit('b.txt', 'mine, longer');
    // A file made at the path between the check that it is empty and the putting back.
    race.before(b.at, () => writeFileSync(join(t.root, 'b.txt'), 'made here'));
    const bDone = t.ops.delete(t.change('D', 'b.txt'), b);
    expect(files(t.root)).toEqual({ 'b.txt': 'made here', 'kept/b.txt': 'mine, longer' });
    expect(bDone).toEqual({ outcome: 'conflict', kind: 'delete-kept', save: false, yours: 'kept/b.txt' });
    // Without hard links nothing can be put back only where nothing is: yours is kept, never renamed over a path.
    const nl = setup({ 'c.txt': 'v1' }, { linkSync: noHardLinks });
    const c = nl.judged('c.txt');
    nl.edit('c.txt', 'mine, longer');
    const cDone = nl.ops.delete(nl.change('D', 'c.txt'), c);
    expect(files(nl.root)).toEqual({ 'kept/c.txt': 'mine, longer' });
    expect(cDone).toEqual({ outcome: 'conflict', kind: 'delete-kept', save: false, yours: 'kept/c.txt' });
    // A link changed here goes back as a link made again (symlink(2) never replaces anything either).
    symlinkSync('a', join(nl.root, 'l'));
    const l = nl.judged('l');
    unlinkSync(join(nl.root, 'l'));
    symlinkSync('mine', join(nl.root, 'l'));
    expect(nl.ops.delete(nl.change('D', 'l', undefined, { type: 'l' }), l)).toEqual({ outcome: 'conflict', kind: 'delete-kept', save: false });
    expect(readlinkSync(join(nl.root, 'l'))).toBe('mine');
  });

  it('replace without hard links (a copy as the second name): an edit in the instant before the rename is seen, and yours goes back', () => {
    const race = racing();
    const t = setup({ 'a.txt': 'v1', 'b.txt': 'v1' }, { ...race.fs, linkSync: noHardLinks });
    expect(t.ops.replace(t.change('M', 'a.txt', 'v2'), t.judged('a.txt'))).toEqual({ outcome: 'applied', counts: 'file' });
    const b = t.judged('b.txt');
    race.before(b.at, () => t.edit('b.txt', 'mine, longer'));
    expect(t.ops.replace(t.change('M', 'b.txt', 'v2'), b)).toEqual({ outcome: 'conflict', kind: 'changed-here', save: false });
    expect(files(t.root)).toEqual({ 'a.txt': 'v2', 'b.txt': 'mine, longer' });
  });
});
