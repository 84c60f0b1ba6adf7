// The bare .pth files of a venv here, as the worker's venv gets them (lib/run/venv-pth.ts): which files are bare,
// and how each line is read the way site.py reads it. (test/run/venv-pth-worker.test.ts runs real ones through a
// real worker.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { barePth } from '../../lib/run/venv-pth.js';
import { tempDir } from '../helpers/context.js';

/** A project with `.venv/lib/python3.11/site-packages` holding `files`, and a `src/` folder. */
function venvSite(files: Record<string, string>): { root: string; venv: string; site: string } {
  const root = tempDir('sparehand-pth-');
  const venv = join(root, '.venv');
  const site = join(venv, 'lib', 'python3.11', 'site-packages');
  mkdirSync(site, { recursive: true });
  mkdirSync(join(root, 'src'), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(site, name, '..'), { recursive: true });
    writeFileSync(join(site, name), text);
  }
  return { root, venv, site };
}
const SITE_REL = '.venv/lib/python3.11/site-packages';

describe('bare .pth files', () => {
  it("a folder in the project, absolute or relative to site-packages, becomes the copy's own, relative to site-packages", () => {
    const { root, venv, site } = venvSite({});
    writeFileSync(join(site, 'easy-install.pth'), `import sys; sys.__plen = len(sys.path)\n${join(root, 'src')}\n# a comment\n\n../../../..\n`);
    expect(barePth(site, SITE_REL, root, venv)).toEqual({
      pth: [{ file: 'easy-install.pth', lines: ['import sys; sys.__plen = len(sys.path)', '../../../../src', '../../../..'] }],
    });
  });

  it('a folder reached through a link in the project is the folder it leads to', () => {
    const { root, venv, site } = venvSite({});
    symlinkSync(join(root, 'src'), join(root, 'code'));
    writeFileSync(join(site, 'a.pth'), `${join(root, 'code')}\n`);
    expect(barePth(site, SITE_REL, root, venv)).toEqual({ pth: [{ file: 'a.pth', lines: ['../../../../src'] }] });
  });

  it("a package's own .pth (named in its RECORD), virtualenv's and setuptools' are not bare; a folder not there is left out", () => {
    const { root, venv, site } = venvSite({
      'demo-0.1.0.dist-info/RECORD': '__editable__.demo-0.1.0.pth,,\ndemo-0.1.0.dist-info/RECORD,,\n',
      '_virtualenv.pth': 'import _virtualenv\n',
      'distutils-precedence.pth': "import os; var = 'SETUPTOOLS_USE_DISTUTILS'\n",
    });
    writeFileSync(join(site, '__editable__.demo-0.1.0.pth'), `${join(root, 'src')}\n`);
    writeFileSync(join(site, 'gone.pth'), `${join(root, 'no-such-folder')}\n`);
    expect(barePth(site, SITE_REL, root, venv)).toEqual({ pth: [{ file: 'gone.pth', lines: [] }] });
  });

  it('a RECORD path quoted because it holds a comma still owns its file', () => {
    const { root, venv, site } = venvSite({ 'x-1.dist-info/RECORD': '"a,b.pth",sha256=abc,3\n' });
    writeFileSync(join(site, 'a,b.pth'), `${join(root, 'src')}\n`);
    expect(barePth(site, SITE_REL, root, venv)).toEqual({ pth: [] });
  });

  it('a folder outside the project, or in the venv (an egg the worker does not make), cannot be made there', () => {
    const outside = tempDir('sparehand-pth-outside-');
    const a = venvSite({});
    writeFileSync(join(a.site, 'x.pth'), `${outside}\n`);
    expect(barePth(a.site, SITE_REL, a.root, a.venv)).toEqual({ cannot: `its x.pth adds ${outside}, outside the project, which the worker does not have` });
    const b = venvSite({ 'six-1.0-py3.11.egg/six.py': '' });
    writeFileSync(join(b.site, 'easy-install.pth'), './six-1.0-py3.11.egg\n');
    expect(barePth(b.site, SITE_REL, b.root, b.venv)).toEqual({
      cannot: 'its easy-install.pth adds ./six-1.0-py3.11.egg, inside the venv, which the worker makes anew from what is installed in it',
    });
    // (A folder in the project whose name starts with two dots is in it.)
    const c = venvSite({});
    mkdirSync(join(c.root, '..x'));
    writeFileSync(join(c.site, 'y.pth'), `${join(c.root, '..x')}\n`);
    expect(barePth(c.site, SITE_REL, c.root, c.venv)).toEqual({ pth: [{ file: 'y.pth', lines: ['../../../../..x'] }] });
  });

  it('a .pth that is a FIFO is not read (it would hold up every run)', () => {
    const { root, venv, site } = venvSite({});
    execFileSync('mkfifo', [join(site, 'stuck.pth')]);
    expect(barePth(site, SITE_REL, root, venv)).toEqual({ pth: [] });
  });

  it("an import line that names this machine's project folder cannot be made there", () => {
    const { root, venv, site } = venvSite({});
    writeFileSync(join(site, 'hook.pth'), `import sys; sys.path.insert(0, ${JSON.stringify(join(root, 'src'))})\n`);
    expect(barePth(site, SITE_REL, root, venv)).toMatchObject({
      cannot: expect.stringMatching(/^its hook\.pth runs `import sys; .*`, which names this machine's folder /),
    });
  });
});
