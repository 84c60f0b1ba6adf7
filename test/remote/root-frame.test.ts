// The worker program names its copy's absolute folder (`root`) before anything runs, and the command's stderr
// comes in `err` frames beside stdout's `out` frames: real perl, no ssh.
import { realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rootsOf } from '../../lib/remote/root-rewrite.js';
import { tempDir } from '../helpers/context.js';
import { runWorker, workerFolder } from '../helpers/local-worker.js';

describe("the worker's root frame and the command's stderr", () => {
  it('names the copy as the command sees it, before the command runs', async () => {
    const w = workerFolder();
    const a = await runWorker(w, { command: 'echo "$PWD"; echo e1 >&2; echo o2; echo e2 >&2' });
    expect(a.status).toBe(0);
    const root = a.frames.find((f) => f.type === 'root');
    expect(rootsOf(root?.payload ?? Buffer.alloc(0), w.key, 0)).toEqual([realpathSync(w.root)]);
    const types = a.frames.map((f) => f.type);
    expect(types.indexOf('root')).toBeLessThan(types.indexOf('out'));
    const of = (t: string) =>
      a.frames
        .filter((f) => f.type === t)
        .map((f) => f.payload.toString())
        .join('');
    expect({ out: of('out'), err: of('err') }).toEqual({ out: `${realpathSync(w.root)}\no2\n`, err: 'e1\ne2\n' });
  });

  it('names it also as the login folder names it when a link lies on the way', async () => {
    const w = workerFolder();
    const link = join(tempDir('sparehand-link-'), 'work');
    symlinkSync(w.dir, link);
    const a = await runWorker({ dir: link, key: w.key }, { command: 'true' });
    const root = a.frames.find((f) => f.type === 'root');
    expect(rootsOf(root?.payload ?? Buffer.alloc(0), w.key, 0)).toEqual([realpathSync(w.root), join(link, w.key, '0')]);
  });
});
