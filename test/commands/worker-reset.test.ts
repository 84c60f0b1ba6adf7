// `sparehand worker reset` says what it did: the copies it removed, or that there were none (never "removed the
// copies of ~" that no run ever made), with every name printed safely. A real sshd.
import { existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';

const w = sharedWorker();
const reset = (cwd: string, ...args: string[]) => sparehand(['worker', 'reset', ...args], { env: w.wh.env, cwd });

describe('worker reset', () => {
  it('in the home folder: nothing to reset, and says so (no run sends it)', async () => {
    const r = await reset(w.wh.home);
    expect([r.exitCode, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toBe(
      `sparehand: nothing to reset: ${w.wh.home}: it is your home folder, not a project, and no run sends it to a worker; run this in a project, or give --project DIR\n`,
    );
  });

  it('in a folder no run was made from (/tmp, say): no copies there, nothing removed', async () => {
    const dir = tempDir('sparehand-never-run-');
    const r = await reset(dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^sparehand: w0: no copies of ${dir} there \\(no \\S+/${basename(dir)}-[0-9a-f]+\\), nothing removed\\n$`));
  });

  it('after a run: removes its copies and says which, then finds none', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const ran = await sparehand(['run', '--', 'true'], { env: w.wh.env, cwd: proj });
    expect(ran.exitCode, ran.stderr).toBe(0);
    const copies = join(copyPath(w.wh, w.sshd.remoteDir, proj), '..');
    expect(existsSync(copies)).toBe(true);
    const r = await reset(proj);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`^sparehand: w0: removed \\S+/${basename(copies)} \\(the copies of ${proj}\\); forgot this machine's 1 record of them\\n$`),
    );
    expect(existsSync(copies)).toBe(false);
    const again = await reset(proj);
    expect(again.stderr).toMatch(/^sparehand: w0: no copies of \S+ there \(no \S+\), nothing removed\n$/);
  });

  it('a project whose name holds a line break and an escape sequence is printed safely', async () => {
    const dir = join(tempDir('sparehand-odd-'), 'x\nsparehand: w0: removed everything \x1b[2K');
    mkdirSync(dir);
    const r = await reset(dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).not.toContain('\x1b');
    expect(r.stderr).toContain('x\\nsparehand: w0: removed everything \\x1b[2K"');
  });
});
