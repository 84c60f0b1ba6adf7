// A local .venv with no lock or requirements file (`python -m venv .venv && pip install -e . helper`, activated):
// the worker makes the same one from what is installed in it here, or the run says it cannot and runs here with
// --or-local; VIRTUAL_ENV on the worker never names a folder that is not there. Real pip, local wheels (there is no
// PyPI here), a real sshd.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { venvWith, wheel } from '../helpers/python.js';
import { activated, demoProject, links, PROBE, sshd, useVenvWorker, wh } from '../helpers/venv-worker.js';
import { copyPath } from '../helpers/worker-env.js';

useVenvWorker();

// Real venvs and pip, here and on the worker, several times a test: minutes on a loaded machine.
describe('a local .venv with no requirements file', { timeout: 180_000 }, () => {
  it('is made on the worker from what is installed in it here: same packages and versions, the project editable there too', async () => {
    const proj = demoProject();
    const doc = await sparehand(['doctor'], { env: activated(proj), cwd: proj });
    expect(doc.stdout).toMatch(
      /^ok {2}dependencies: \.venv in the project root has no requirements or lock file: the worker makes it from what is installed in it here \(the 2 packages installed in it here; it needs python3\.\d+ and the same wheels\)$/m,
    );
    const here = execFileSync('bash', ['-c', PROBE], { cwd: proj, env: activated(proj), encoding: 'utf8' });
    expect(here).toBe('hello 42 True True\n');
    const r = await sparehand(['run', '--', PROBE], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, here]);
    expect(r.stderr).toContain(
      'sparehand: installing dependencies on the worker (no requirements file: .venv made from the 2 packages installed in it here): command -v python3.',
    );
    expect(r.stderr).toMatch(/ran on w0: /);
    const copy = copyPath(wh, sshd.remoteDir, proj);
    const freeze = (python: string) => execFileSync(python, ['-m', 'pip', 'freeze', '--exclude-editable'], { encoding: 'utf8' });
    // (pip freeze, as sparehand, leaves out pip and setuptools: the worker's python3.X brings its own.)
    expect(freeze(join(proj, '.venv', 'bin', 'python'))).toContain('tinyhelper==1.0');
    expect(freeze(join(copy, '.venv', 'bin', 'python'))).toBe(freeze(join(proj, '.venv', 'bin', 'python')));

    // Editable there: a change to the project's source is seen by the next run, with nothing installed again.
    writeFileSync(join(proj, 'src', 'demo', '__init__.py'), 'def hello():\n    return "changed"\n');
    const again = await sparehand(['run', '--', PROBE], { env: activated(proj), cwd: proj });
    expect([again.exitCode, again.stdout], again.stderr).toEqual([0, 'changed 42 True True\n']);
    expect(again.stderr).not.toContain('installing dependencies');
  });

  it('where the worker cannot get the packages: says so, runs here with --or-local, and never runs with a VIRTUAL_ENV that is not there', async () => {
    const proj = demoProject();
    const empty = tempDir('sparehand-no-wheels-');
    const r = await sparehand(['run', '--or-local', '--', PROBE], { env: activated(proj, empty), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'hello 42 True True\n']);
    expect(r.stderr).toMatch(
      /running locally: w0: installing dependencies failed on the worker \(exit 1\): .*it said: .*(No matching distribution|Could not find a version).*tinyhelper/,
    );
    expect(r.stderr).not.toMatch(/ImportError|ModuleNotFoundError/);
    const again = await sparehand(['run', '--', PROBE], { env: activated(proj, empty), cwd: proj });
    expect(again.exitCode).toBe(125);
    expect(again.stderr).toContain("w0 cannot install this project's dependencies");
  });

  it('a package installed from a path outside the project cannot be made there: said before anything is sent, run here with --or-local', async () => {
    const proj = gitProject({ '.gitignore': '.venv/\n' });
    const outside = tempDir('sparehand-outside-');
    mkdirSync(outside, { recursive: true });
    wheel(outside, 'localonly', 'VALUE = 7\n');
    venvWith(proj, links, [join(outside, 'localonly-1.0-py3-none-any.whl')]);
    const probe = "python -c 'import localonly; print(localonly.VALUE)'";
    const r = await sparehand(['run', '--or-local', '--', probe], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, '7\n']);
    expect(r.stderr).toMatch(
      /^sparehand: running locally: the project's virtual environment \.venv cannot be made on a worker from what is installed in it here: localonly 1\.0 was installed from file:\/\/.*localonly-1\.0-py3-none-any\.whl, which the worker does not have\n$/,
    );
    const doc = await sparehand(['doctor'], { env: activated(proj), cwd: proj });
    expect(doc.stdout).toMatch(
      /^BAD dependencies: \.venv in the project root cannot be made on a worker: localonly 1\.0 was installed from file:.*, which the worker does not have; a run that uses it runs here with --or-local/m,
    );
    const not = await sparehand(['run', '--', probe], { env: activated(proj), cwd: proj });
    expect(not.exitCode).toBe(125);
    expect(not.stderr).toContain('cannot be made on a worker');
  });

  it('an active venv nothing can make there (no pyvenv.cfg to read): the worker refuses rather than name a folder it does not have', async () => {
    const proj = gitProject({ '.gitignore': '.venv/\n', '.venv/bin/tool': '#!/bin/sh\n' });
    const r = await sparehand(['run', '--or-local', '--', 'echo "$VIRTUAL_ENV"'], { env: activated(proj), cwd: proj });
    expect([r.exitCode, r.stdout]).toEqual([0, `${join(proj, '.venv')}\n`]);
    expect(r.stderr).toMatch(
      /running locally: w0: the virtual environment active here \(\.venv\) is not in the worker's copy, and nothing here says how to make it there\n$/,
    );
  });
});
