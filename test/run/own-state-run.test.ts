// sparehand's own state, turned against it by another user: a forged "w0 did not answer a second ago" in a
// $TMPDIR/sparehand-<uid>/ that another user made first kept every run off w0. A real run against a real sshd (the
// worker as an ordinary user), the forged files really another user's (nobody, as root).
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { itNeedsRoot } from '../helpers/as-root.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { sharedWorker } from '../helpers/worker-env.js';

const NOBODY = 65534;
const w = sharedWorker();

describe("another user's files in sparehand's temp folder", () => {
  itNeedsRoot('(needs root: chown) a forged "did not answer" there does not keep the run off the worker: it runs there, with one line', async () => {
    const tmp = tempDir('sparehand-tmpdir-');
    chmodSync(tmp, 0o1777);
    const mine = join(tmp, `sparehand-${process.getuid!()}`);
    mkdirSync(join(mine, 'unreachable'), { recursive: true, mode: 0o755 });
    writeFileSync(
      join(mine, 'unreachable', 'w0.json'),
      JSON.stringify({ at: Date.now() - 1000, why: 'ssh: connect to host box port 22: Connection timed out' }),
    );
    for (const p of [mine, join(mine, 'unreachable'), join(mine, 'unreachable', 'w0.json')]) chownSync(p, NOBODY, NOBODY);
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--', 'cat a.txt; echo "on $(id -un)"'], { env: { ...w.wh.env, TMPDIR: tmp }, cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, `a\non ${w.sshd.user}\n`]);
    expect(r.stderr).toContain(`sparehand: ignored ${mine}: it belongs to another user (uid ${NOBODY})\n`);
    expect(r.stderr).not.toContain('did not answer');
  });
});
