// `sparehand worker reset` says what it did: the copies it removed, or that there were none (never "removed the
// copies of ~" that no run ever made), with every name printed safely. A real sshd.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { giveToWorker } from '../helpers/sshd.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';

const w = sharedWorker();
/** The line that says what a reset keeps (issue 42), as a pattern. */
const KEPT =
  "sparehand: kept the package managers' caches on the worker \\(npm's, pnpm's, yarn's, bun's, pip's, uv's\\): `worker reset --all` removes them too\\n";
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
    expect(r.stderr).toMatch(new RegExp(`^sparehand: w0: no copies of ${dir} there \\(no \\S+/${basename(dir)}-[0-9a-f]+\\), nothing removed\\n${KEPT}$`));
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
      new RegExp(`^sparehand: w0: removed \\S+/${basename(copies)} \\(the copies of ${proj}\\); forgot this machine's 1 record of them\\n${KEPT}$`),
    );
    expect(existsSync(copies)).toBe(false);
    const again = await reset(proj);
    expect(again.stderr).toMatch(new RegExp(`^sparehand: w0: no copies of \\S+ there \\(no \\S+\\), nothing removed\\n${KEPT}$`));
  });

  it('a project whose name holds a line break and an escape sequence is printed safely', async () => {
    const dir = join(tempDir('sparehand-odd-'), 'x\nsparehand: w0: removed everything \x1b[2K');
    mkdirSync(dir);
    const r = await reset(dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split('\n')).toHaveLength(3);
    expect(r.stderr).not.toContain('\x1b');
    expect(r.stderr).toContain('x\\nsparehand: w0: removed everything \\x1b[2K"');
  });

  it("keeps the package managers' caches on the worker, and says so; --all removes them too and names them", async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const cache = join(w.sshd.home, '.npm', '_cacache');
    mkdirSync(join(cache, 'index-v5'), { recursive: true });
    writeFileSync(join(cache, 'index-v5', 'entry'), 'x');
    giveToWorker(join(w.sshd.home, '.npm'));
    const kept = await reset(proj);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toMatch(new RegExp(`${KEPT}$`));
    expect(existsSync(join(cache, 'index-v5', 'entry'))).toBe(true);
    const all = await reset(proj, '--all');
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stderr).toMatch(/\nsparehand: w0: removed the package managers' caches ~\/\.npm\/_cacache\n$/);
    expect(existsSync(cache)).toBe(false);
    expect(existsSync(join(w.sshd.home, '.npm'))).toBe(true);
    const none = await reset(proj, '--all');
    expect(none.stderr).toMatch(/\nsparehand: w0: no package manager caches there\n$/);
  });
});
