// A file of yours the apply had moved aside and could not put back is never removed with the run's staging folder,
// nor with a killed run's: it goes to `.sparehand/yours/`, and the run says where (lib/state/own-folder.ts).
import { lstatSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../lib/remote/change.js';
import { yoursLine } from '../../lib/run/report.js';
import { asideName, makeStaging, removeStaging } from '../../lib/state/own-folder.js';
import { openFolders } from '../../lib/sync/open-folders.js';
import { operations } from '../../lib/sync/operations.js';
import { tempDir } from '../helpers/context.js';

const staging = (root: string, nonce: string): string => {
  const made = makeStaging(root, nonce);
  if (!('dir' in made)) throw new Error(made.why);
  return made.dir;
};
const noSpace = () => {
  throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
};

describe('files of yours held aside', () => {
  it("a delete that cannot put yours back (the disk full): yours outlives the run's staging folder, and the run says where", () => {
    const root = tempDir();
    writeFileSync(join(root, 'b.txt'), 'v1');
    const dir = staging(root, 'n1');
    writeFileSync(join(dir, 'staged-0'), "the worker's");
    const folders = openFolders(root);
    try {
      const ops = operations({
        folders,
        saving: () => folders,
        scratch: () => ({ path: dir, at: dir }),
        conflictsDir: () => undefined,
        withoutSpecialBits: () => undefined,
        fs: { linkSync: noSpace },
      });
      const at = join(folders.folder('', false) as string, 'b.txt');
      const judged = { at, st: lstatSync(at) };
      writeFileSync(join(root, 'b.txt'), 'mine, edited during the run');
      const c: Change = {
        index: 0,
        op: 'D',
        type: 'f',
        base: undefined,
        mode: 0o644,
        mtime: 1_700_000_000,
        size: 0,
        hash: undefined,
        path: 'b.txt',
        target: '',
      };
      expect(() => ops.delete(c, judged)).toThrow(/no space/);
    } finally {
      folders.close();
    }
    // The apply failed with yours moved aside: the only copy of it is in the staging folder.
    expect(readdirSync(dir)).toContain(asideName(0));
    const kept = removeStaging(root, 'n1');
    expect(kept).toEqual([`.sparehand/yours/n1-${asideName(0)}`]);
    expect(readFileSync(join(root, kept[0] as string), 'utf8')).toBe('mine, edited during the run');
    expect(readdirSync(join(root, '.sparehand', 'incoming'))).toEqual([]);
    expect(yoursLine(kept)).toContain(`.sparehand/yours/n1-${asideName(0)}`);
    // Said again after the next run, until deleted.
    staging(root, 'n2');
    expect(removeStaging(root, 'n2')).toEqual(kept);
  });

  it("a killed run's staging folder: removed by a later run but for what of yours it held, which goes to .sparehand/yours", () => {
    const root = tempDir();
    const old = staging(root, 'killed');
    writeFileSync(join(old, 'staged-3'), "the worker's");
    writeFileSync(join(old, asideName(3)), 'mine');
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(old, hoursAgo, hoursAgo);
    staging(root, 'next');
    expect(readdirSync(join(root, '.sparehand', 'incoming'))).toEqual(['next']);
    expect(readFileSync(join(root, '.sparehand', 'yours', `killed-${asideName(3)}`), 'utf8')).toBe('mine');
    expect(removeStaging(root, 'next')).toEqual([`.sparehand/yours/killed-${asideName(3)}`]);
  });

  it('where .sparehand/yours cannot be made, yours stays in the staging folder, alone, and the run names it there', () => {
    const root = tempDir();
    const dir = staging(root, 'n1');
    writeFileSync(join(dir, 'staged-0'), "the worker's");
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, asideName(7)), 'mine');
    writeFileSync(join(root, '.sparehand', 'yours'), 'a file where the folder would be');
    expect(removeStaging(root, 'n1')).toEqual([`.sparehand/incoming/n1/${asideName(7)}`]);
    expect(readdirSync(dir)).toEqual([asideName(7)]);
    expect(readFileSync(join(dir, asideName(7)), 'utf8')).toBe('mine');
  });
});
