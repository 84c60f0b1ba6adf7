// Venvs of odd shapes: one that sees the system site-packages is made so on the worker; one it cannot read as pip
// would (a file://host/ URL, a direct_url.json that is not an object) is one line and runs here with --or-local,
// never an internal error (issue 35). Real venvs and pip, local wheels, a real sshd.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { venvWith, wheel } from '../helpers/python.js';
import { activated, links, sitePackages, sshd, useVenvWorker, wh } from '../helpers/venv-worker.js';
import { copyPath } from '../helpers/worker-env.js';

useVenvWorker();

describe('a local .venv that sees the system site-packages', { timeout: 180_000 }, () => {
  it('made with --system-site-packages: the worker makes its own so too (the packages its Python has are seen)', async () => {
    const proj = gitProject({ '.gitignore': '.venv/\n' });
    execFileSync('python3', ['-m', 'venv', '--system-site-packages', '.venv'], { cwd: proj });
    const probe = `python -c 'import site, sys; print(any(not p.startswith(sys.prefix) for p in site.getsitepackages()))'`;
    const here = execFileSync('bash', ['-c', probe], { cwd: proj, env: activated(proj), encoding: 'utf8' });
    expect(here).toBe('True\n');
    const r = await sparehand(['run', '--', probe], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, here]);
    expect(readFileSync(join(copyPath(wh, sshd.remoteDir, proj), '.venv', 'pyvenv.cfg'), 'utf8')).toMatch(/^include-system-site-packages = true$/m);
  });
});

describe('a .venv it cannot read as pip would (issue 35)', { timeout: 180_000 }, () => {
  /** A project whose .venv holds `remote`, recorded (direct_url.json) as installed from a file URL on another host. */
  function otherHostProject(): string {
    const proj = gitProject({ '.gitignore': '.venv/\n' });
    const wheels = tempDir('sparehand-host-wheels-');
    wheel(wheels, 'remote', 'VALUE = 5\n');
    venvWith(proj, links, [join(wheels, 'remote-1.0-py3-none-any.whl')]);
    const info = join(sitePackages(proj), 'remote-1.0.dist-info', 'direct_url.json');
    writeFileSync(info, JSON.stringify({ url: 'file://buildhost/srv/wheels/remote-1.0-py3-none-any.whl', archive_info: {} }));
    return proj;
  }

  it('a package installed from file://host/…: a run that does not use the venv runs there; one that does is one line and runs here with --or-local', async () => {
    const proj = otherHostProject();
    const hi = await sparehand(['run', '--', 'echo hi'], { env: wh.env, cwd: proj });
    expect([hi.exitCode, hi.stdout], hi.stderr).toEqual([0, 'hi\n']);
    expect(hi.stderr).toMatch(/ran on w0: /);
    const probe = "python -c 'import remote; print(remote.VALUE)'";
    const r = await sparehand(['run', '--or-local', '--', probe], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, '5\n']);
    expect(r.stderr).toBe(
      "sparehand: running locally: the project's virtual environment .venv cannot be made on a worker from what is installed in it here: remote 1.0 was installed from file://buildhost/srv/wheels/remote-1.0-py3-none-any.whl, which the worker does not have\n",
    );
    const not = await sparehand(['run', '--', probe], { env: activated(proj), cwd: proj });
    expect(not.exitCode).toBe(125);
    expect(not.stderr).toContain('remote 1.0 was installed from file://buildhost/');
    expect(not.stderr).toContain('add a requirements or lock file');
    expect(not.stderr).not.toContain('this is a bug');
    const doc = await sparehand(['doctor'], { env: activated(proj), cwd: proj });
    expect(doc.stdout).toMatch(
      /^BAD dependencies: \.venv in the project root cannot be made on a worker: remote 1\.0 was installed from file:\/\/buildhost\//m,
    );
  });

  it('a direct_url.json that is not an object (null) is a package it cannot place, not a crash', async () => {
    const proj = otherHostProject();
    writeFileSync(join(sitePackages(proj), 'remote-1.0.dist-info', 'direct_url.json'), 'null');
    const probe = "python -c 'import remote; print(remote.VALUE)'";
    const r = await sparehand(['run', '--or-local', '--', probe], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, '5\n']);
    expect(r.stderr).toBe(
      "sparehand: running locally: the project's virtual environment .venv cannot be made on a worker from what is installed in it here: remote 1.0 was installed from somewhere pip did not record, which the worker does not have\n",
    );
  });
});
