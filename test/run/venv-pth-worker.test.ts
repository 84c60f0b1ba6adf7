// A local .venv whose project is installed by bare .pth files (`setup.py develop`): the worker reproduces them with
// their paths rewritten to its copy, on one slot and on a second; one naming a folder outside the project is said
// before anything is sent (issue 36). Real venvs, pip and setuptools, local wheels, a real sshd.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { startMarker, until } from '../helpers/project.js';
import { activated, developProject, FROM, links, sitePackages, sshd, useVenvWorker, wh } from '../helpers/venv-worker.js';
import { copyPath, workerFolder, workerHome } from '../helpers/worker-env.js';

useVenvWorker();

describe('a local .venv with bare .pth files (setup.py develop)', { timeout: 180_000 }, () => {
  it('is made on the worker with the same .pth files, their paths rewritten to the copy (not the folder here)', async () => {
    const proj = developProject();
    const site = sitePackages(proj);
    expect(readFileSync(join(site, 'easy-install.pth'), 'utf8')).toContain(join(proj, 'src'));
    expect(readdirSync(site).filter((n) => n.startsWith('demo'))).toEqual(['demo.egg-link']);
    const here = execFileSync('bash', ['-c', FROM], { cwd: proj, env: activated(proj), encoding: 'utf8' });
    expect(here).toBe(`hello 42 ${join('src', 'demo', '__init__.py')}\n`);
    const r = await sparehand(['run', '--', FROM], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, here]);
    expect(r.stderr).toMatch(/ran on w0: /);
    const copy = copyPath(wh, sshd.remoteDir, proj);
    // The line names the copy's own src, relative to the site-packages folder (as site.py reads a .pth line).
    const there = sitePackages(copy);
    expect(readFileSync(join(there, 'easy-install.pth'), 'utf8')).toBe(`${relative(there, join(copy, 'src'))}\n`);

    const doc = await sparehand(['doctor'], { env: activated(proj), cwd: proj });
    expect(doc.stdout).toMatch(
      /^ok {2}dependencies: \.venv in the project root has no requirements or lock file: the worker makes it from what is installed in it here \(the 1 packages installed in it here and its easy-install\.pth; /m,
    );

    // Not activated, `.venv/bin/python` named: the same.
    const named = await sparehand(['run', '--', FROM.replace(/^python /, '.venv/bin/python ')], {
      env: { ...wh.env, PIP_NO_INDEX: '1', PIP_FIND_LINKS: links },
      cwd: proj,
    });
    expect([named.exitCode, named.stdout], named.stderr).toEqual([0, here]);
  });

  it('a .pth naming a folder outside the project: said in one line before anything is sent, run here with --or-local', async () => {
    const proj = developProject();
    const outside = tempDir('sparehand-outside-');
    writeFileSync(join(outside, 'elsewhere.py'), 'VALUE = 9\n');
    writeFileSync(join(sitePackages(proj), 'extra.pth'), `${outside}\n`);
    const probe = "python -c 'import demo, elsewhere; print(demo.hello(), elsewhere.VALUE)'";
    const r = await sparehand(['run', '--or-local', '--', probe], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'hello 9\n']);
    expect(r.stderr).toBe(
      `sparehand: running locally: the project's virtual environment .venv cannot be made on a worker from what is installed in it here: its extra.pth adds ${outside}, outside the project, which the worker does not have\n`,
    );
    expect(existsSync(copyPath(wh, sshd.remoteDir, proj))).toBe(false);
    const doc = await sparehand(['doctor'], { env: activated(proj), cwd: proj });
    expect(doc.stdout).toContain(`BAD dependencies: .venv in the project root cannot be made on a worker: its extra.pth adds ${outside}, outside the project`);
    const not = await sparehand(['run', '--', probe], { env: activated(proj), cwd: proj });
    expect(not.exitCode).toBe(125);
    expect(not.stderr).toContain('extra.pth adds');
    expect(not.stderr).not.toContain('this is a bug');
  });
});

describe('a venv with a bare .pth on a worker with two slots', { timeout: 240_000 }, () => {
  it("the second slot's venv (installed or copied from the first) imports the project from the second slot's own copy", async () => {
    const proj = developProject();
    const two = workerHome([sshd], { slots: 2, dir: 'two-slots', env: ['npm_config_update_notifier', 'PIP_NO_INDEX', 'PIP_FIND_LINKS'] });
    try {
      const env = { ...activated(proj), HOME: two.env.HOME };
      const here = execFileSync('bash', ['-c', FROM], { cwd: proj, env: activated(proj), encoding: 'utf8' });
      const first = await sparehand(['run', '--', FROM], { env, cwd: proj });
      expect([first.exitCode, first.stdout], first.stderr).toEqual([0, here]);
      const mark = startMarker();
      const busy = sparehand(['run', '--', `${mark.touch}; sleep 5`], { env, cwd: proj });
      expect(await until(mark.started)).toBe(true);
      const second = await sparehand(['run', '--', FROM], { env, cwd: proj });
      expect((await busy).exitCode).toBe(0);
      // (relpath from the folder it runs in: slot 0's src would be ../0/src/demo/__init__.py.)
      expect([second.exitCode, second.stdout], second.stderr).toEqual([0, here]);
      const slot1 = copyPath(two, workerFolder(sshd, 'two-slots'), proj, 1);
      expect(existsSync(join(sitePackages(slot1), 'easy-install.pth'))).toBe(true);
    } finally {
      await two.close();
    }
  });
});
