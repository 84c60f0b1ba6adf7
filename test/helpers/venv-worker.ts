// The worker and the projects the venv tests share (test/run/venv-*.test.ts, one file per kind of venv so that they
// run side by side): a real sshd with the worker added as README says, a folder of local wheels (there is no PyPI
// here), and projects installed with real pip.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './context.js';
import { gitProject } from './project.js';
import { editableProject, venvWith, wheel } from './python.js';
import { type Sshd, startSshd } from './sshd.js';
import { type WorkerHome, workerHome } from './worker-env.js';
import { workerOwnerHome } from './worker-home.js';

export let sshd: Sshd;
export let wh: WorkerHome;
/** The folder of local wheels (tinyhelper 1.0) pip installs from, here and on the worker. */
export let links: string;

/** Starts the worker before the file's tests and stops it after them (call once, at the top of a test file). */
export function useVenvWorker(): void {
  beforeAll(async () => {
    sshd = await startSshd({ home: workerOwnerHome() });
    wh = workerHome([sshd], { env: ['npm_config_update_notifier', 'PIP_NO_INDEX', 'PIP_FIND_LINKS'] });
    links = tempDir('sparehand-wheels-');
    wheel(links, 'tinyhelper', 'VALUE = 42\n');
  });
  afterAll(async () => {
    await wh.close();
    await sshd.stop();
  });
}

/** The project `demo` installed editable in its .venv, with tinyhelper from the wheels folder. */
export function demoProject(): string {
  const proj = gitProject({ '.gitignore': '.venv/\n__pycache__/\n' });
  editableProject(proj);
  venvWith(proj, links, ['-e', '.', 'tinyhelper']);
  return proj;
}

/** The caller's shell with the project's .venv activated, and pip told where the wheels are (on both machines). */
export const activated = (proj: string, wheels = links): NodeJS.ProcessEnv => ({
  ...wh.env,
  VIRTUAL_ENV: join(proj, '.venv'),
  PATH: `${join(proj, '.venv', 'bin')}${delimiter}${wh.env.PATH}`,
  PIP_NO_INDEX: '1',
  PIP_FIND_LINKS: wheels,
});

export const PROBE = `python -c 'import os, sys, demo, tinyhelper; print(demo.hello(), tinyhelper.VALUE, sys.prefix == os.environ["VIRTUAL_ENV"], os.path.isdir(os.environ["VIRTUAL_ENV"]))'`;

/** The site-packages folder of `proj`'s .venv (here, or in a worker's copy). */
export function sitePackages(venvHome: string): string {
  const lib = join(venvHome, '.venv', 'lib');
  const py = readdirSync(lib).find((n) => /^python3\.\d+$/.test(n));
  if (!py) throw new Error(`no python3.X folder in ${lib}`);
  return join(lib, py, 'site-packages');
}

/**
 * The project `demo` installed as older setuptools does it, by a real `python setup.py develop` (the setuptools a
 * Python 3.11 venv comes with; no index needed): `easy-install.pth` and `demo.egg-link` in site-packages naming the
 * project's `src`, and no dist-info for demo. tinyhelper from the wheels folder beside it.
 */
export function developProject(): string {
  const proj = gitProject({
    '.gitignore': '.venv/\n__pycache__/\n*.egg-info/\n',
    'setup.py': 'from setuptools import setup\nsetup(name="demo", version="0.1.0", package_dir={"": "src"}, packages=["demo"])\n',
    'src/demo/__init__.py': 'def hello():\n    return "hello"\n',
  });
  venvWith(proj, links, ['tinyhelper']);
  execFileSync(join(proj, '.venv', 'bin', 'python'), ['setup.py', 'develop'], { cwd: proj, stdio: 'pipe' });
  return proj;
}

/** Where demo was imported from, relative to the folder the command runs in (the project, or the worker's copy). */
export const FROM = `python -c 'import os, demo, tinyhelper; print(demo.hello(), tinyhelper.VALUE, os.path.relpath(os.path.realpath(demo.__file__), os.path.realpath(os.getcwd())))'`;
