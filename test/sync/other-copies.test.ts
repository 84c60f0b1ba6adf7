// What a copy that never held an output is sent of it (lib/sync/ancestor.ts withOtherCopies): only an output that
// came back from another copy and that was changed here since — never a file only ever here, never one that ended
// as a conflict there (no `s`: this machine never held it), never one the other copy keeps for itself.
import { lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Ancestor, emptyAncestor, saveAncestor, signature, withOtherCopies } from '../../lib/sync/ancestor.js';
import { gitProject, md5 } from '../helpers/project.js';

describe('outputs another copy brought here', () => {
  it('sends the ones changed here since they came back, and only those', () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'dist/edited.js': 'came back\n', 'dist/same.js': 'came back\n', 'dist/touched.js': 'came back\n' });
    const cameBack = (p: string) => ({ t: 'f' as const, h: md5('came back\n'), m: 0o644, s: signature(lstatSync(join(proj, p))) });
    const other: Ancestor = {
      v: 1,
      gen: 'g0',
      paths: {
        'dist/edited.js': cameBack('dist/edited.js'),
        'dist/same.js': cameBack('dist/same.js'),
        'dist/touched.js': cameBack('dist/touched.js'),
        // A conflict there (this machine never held the copy's bytes), a file the copy keeps, a folder.
        'dist/conflict.js': { t: 'f', h: md5('theirs\n'), m: 0o644 },
        'dist/kept.so': { t: 'f', h: md5('elf\n'), m: 0o755, s: 'x', k: 1 },
        dist: { t: 'd', h: '', m: 0o755, s: 'd' },
      },
    };
    expect(saveAncestor(proj, 'w0-a-0', other)).toBe(true);
    writeFileSync(join(proj, 'dist', 'edited.js'), 'mine\n');
    writeFileSync(join(proj, 'dist', 'touched.js'), 'came back\n');
    writeFileSync(join(proj, 'dist', 'conflict.js'), 'yours\n');
    writeFileSync(join(proj, 'dist', 'kept.so'), 'here\n');
    writeFileSync(join(proj, 'dist', 'only-here.js'), 'never came back\n');
    const seeded = withOtherCopies(proj, 'w0-a-1', emptyAncestor());
    expect(Object.keys(seeded.paths)).toEqual(['dist/edited.js']);
    // As the other copy knew it: so ownChanges finds it changed here and sends it (test/run/outputs-as-here.test.ts).
    expect(seeded.paths['dist/edited.js']).toEqual(other.paths['dist/edited.js']);
    // The copy's own ancestor is its own: what it says of a path is not replaced by another copy's.
    const mineSaid: Ancestor = { v: 1, gen: 'g1', paths: { 'dist/edited.js': { t: 'f', h: md5('older\n'), m: 0o644 } } };
    expect(withOtherCopies(proj, 'w0-a-1', mineSaid).paths).toEqual(mineSaid.paths);
    // And a copy is not its own other copy.
    expect(Object.keys(withOtherCopies(proj, 'w0-a-0', emptyAncestor()).paths)).toEqual([]);
  });
});
