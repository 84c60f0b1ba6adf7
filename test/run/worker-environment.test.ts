// The worker runs what the agent would run here: its owner's login PATH, a program only this machine has runs
// here, dependencies from each ecosystem's file (a broken one runs here), the caller's active .venv there too.
// A real sshd whose sessions get a worker HOME of their own, with Debian's ~/.bashrc and a ~/.profile.
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { gitProject, write } from '../helpers/project.js';
import { wheel } from '../helpers/python.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';
import { workerOwnerHome } from '../helpers/worker-home.js';

let sshd: Sshd;
let owner: string;
let wh: WorkerHome;
beforeAll(async () => {
  owner = workerOwnerHome(['tools/bin']);
  tool(join(owner, 'tools', 'bin'), 'mytool', 'echo "mytool ran"');
  tool(join(owner, 'interactive-only', 'bin'), 'rctool', 'echo "rctool ran"');
  sshd = await startSshd({ home: owner });
  wh = workerHome([sshd]);
});
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});

const run = (proj: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = proj) => sparehand(['run', ...args], { env: { ...wh.env, ...env }, cwd });

describe("the worker's login environment", () => {
  it('a tool only on the login PATH (~/.profile) is found; what ~/.bashrc adds after its non-interactive return is not', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await run(proj, ['--', 'mytool; command -v rctool || echo "no rctool"; echo "$GOFLAGS"']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('mytool ran\nno rctool\n-mod=mod -tags=a,b\n');
  });

  it('a change to ~/.profile is seen by the next run', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    expect((await run(proj, ['--', 'mytool'])).exitCode).toBe(0);
    tool(join(owner, 'more', 'bin'), 'newtool', 'echo "newtool ran"');
    writeFileSync(join(owner, '.profile'), `${execFileSync('cat', [join(owner, '.profile')], { encoding: 'utf8' })}export PATH="$HOME/more/bin:$PATH"\n`);
    const later = new Date(Date.now() + 2000);
    utimesSync(join(owner, '.profile'), later, later);
    const r = await run(proj, ['--', 'newtool']);
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'newtool ran\n']);
  });
});

describe('what the worker cannot run, runs here', () => {
  it('a program only this machine has: --or-local runs here naming it and the worker; without it, 125', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const bin = tempDir();
    tool(bin, 'onlyhere', 'echo "onlyhere ran in $SPAREHAND_RUN"');
    const env = { PATH: `${bin}${delimiter}${wh.env.PATH}` };
    const here = await run(proj, ['--or-local', '--', 'onlyhere && mytool'], env);
    expect([here.exitCode, here.stdout]).toEqual([127, 'onlyhere ran in 1\n']);
    expect(here.stderr).toMatch(/^sparehand: running locally: w0: onlyhere is not on the worker's PATH \(its owner's login PATH: [^)]*tools\/bin[^)]*\)\n/);
    const not = await run(proj, ['--', 'onlyhere'], env);
    expect([not.exitCode, not.stdout]).toEqual([125, '']);
    expect(not.stderr).toContain("sparehand: w0: onlyhere is not on the worker's PATH");
  });

  it('a script in the project that is not sent (ignored here) runs here', async () => {
    const proj = gitProject({ '.gitignore': 'local.sh\n', 'a.txt': 'a\n' });
    tool(proj, 'local.sh', 'echo "local script ran"');
    const r = await run(proj, ['--or-local', '--', './local.sh']);
    expect([r.exitCode, r.stdout]).toEqual([0, 'local script ran\n']);
    expect(r.stderr).toBe("sparehand: running locally: w0: ./local.sh is not in the worker's copy of the project\n");
  });

  it('a dependency install that fails: --or-local runs the command here; without it, 125; never "ran on"', async () => {
    const proj = gitProject({
      'package.json': JSON.stringify({ name: 'x', version: '1.0.0', scripts: { t: 'echo tested' } }),
      'package-lock.json': '{ broken',
    });
    const here = await run(proj, ['--or-local', '--', 'echo ran-here $SPAREHAND_RUN']);
    expect([here.exitCode, here.stdout]).toEqual([0, 'ran-here 1\n']);
    expect(here.stderr).toMatch(
      /sparehand: running locally: w0: installing dependencies failed on the worker \(exit \d+\): npm ci --no-audit --no-fund; it said: npm error code EUSAGE \/ npm error The `npm ci` command can only install .*\n$/,
    );
    expect(here.stderr).not.toContain('ran on w0');
    const not = await run(proj, ['--', 'true']);
    expect(not.exitCode).toBe(125);
    // The same lock file is not tried again (failed-installs.ts): the run says what the worker said last time.
    expect(not.stderr).toMatch(/w0 cannot install this project's dependencies \(remembered from an earlier run: installing dependencies failed on the worker/);
    // doctor, in the project, says what starts the copies there afresh.
    const doc = await sparehand(['doctor'], { env: wh.env, cwd: proj });
    expect(doc.stdout).toMatch(
      /^BAD dependencies: w0 cannot install this project's dependencies \(remembered from an earlier run: installing dependencies failed on the worker \(exit \d+\): npm ci .*\); install what it lacks there, then `sparehand worker reset w0` to try again$/m,
    );
  });
});

describe("Python dependencies and the caller's .venv", () => {
  it('requirements.txt naming a local wheel: a .venv made on the worker, active when it is active here; .venv/bin/python works', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    mkdirSync(join(proj, 'py', 'wheels'), { recursive: true });
    wheel(join(proj, 'py', 'wheels'), 'thewheel', 'VALUE = 42\n');
    write(proj, 'py/requirements.txt', './wheels/thewheel-1.0-py3-none-any.whl\n');
    write(proj, 'py/.gitignore', '.venv/\n');
    const py = join(proj, 'py');
    const venv = { VIRTUAL_ENV: join(py, '.venv') };
    const r = await run(proj, ['--', 'python -c \'import sys, thewheel; print(thewheel.VALUE, sys.prefix.endswith("py/.venv"))\''], venv, py);
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, '42 True\n']);
    expect(r.stderr).toContain('sparehand: installing dependencies on the worker in py: python3 -m venv .venv');
    expect(r.stderr).toMatch(/ran on w0: sync \d+\.\ds, deps \d+\.\ds, run \d+\.\ds, /);
    const direct = await run(proj, ['--', ".venv/bin/python -c 'import thewheel; print(thewheel.VALUE)'"], {}, py);
    expect([direct.exitCode, direct.stdout], direct.stderr).toEqual([0, '42\n']);
    expect(direct.stderr).not.toContain('installing dependencies');
    expect(direct.stderr).not.toMatch(/deps \d/);
  });
});

describe('toolchain parity', () => {
  let other: Sshd;
  let oh: WorkerHome;
  beforeAll(async () => {
    // This worker's login PATH has an older node (a version manager's shim, as nvm or fnm would put there).
    const home = workerOwnerHome(['tools/bin']);
    tool(join(home, 'tools', 'bin'), 'node', 'case "$1" in --version) echo v18.19.0;; esac');
    other = await startSshd({ home });
    oh = workerHome([other]);
  });
  afterAll(async () => {
    await oh?.close();
    await other?.stop();
  });

  it('doctor and worker check in a project show the worker whose node differs, and what .nvmrc wants', async () => {
    const here = execFileSync('node', ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
    const proj = gitProject({ 'package.json': '{"name":"x"}', '.nvmrc': here.split('.')[0] as string, 'Cargo.toml': '[package]\nname = "x"\n' });
    const doctor = await sparehand(['doctor', '--json'], { env: oh.env, cwd: proj });
    expect(doctor.exitCode).toBe(1);
    const node = JSON.parse(doctor.stdout).toolchains.find((t: { id: string }) => t.id === 'node');
    expect(node).toMatchObject({ id: 'node', because: 'package.json', wanted: { file: '.nvmrc' }, here, workers: { w0: '18.19.0' } });
    expect(node.problems).toEqual([`w0 has node 18.19.0, here ${here}`]);
    const check = await sparehand(['worker', 'check'], { env: oh.env, cwd: proj });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(
      `BAD toolchain node (package.json) (.nvmrc: ${here.split('.')[0]}): here ${here}, w0 18.19.0 — w0 has node 18.19.0, here ${here}`,
    );
    // Outside the project nothing is compared.
    const outside = await sparehand(['worker', 'check', '--json'], { env: oh.env, cwd: tempDir() });
    expect(JSON.parse(outside.stdout).toolchains).toEqual([]);
  });

  it('a run with the differing toolchain says so once', async () => {
    const proj = gitProject({ 'package.json': '{"name":"x","scripts":{"v":"echo ok"}}' });
    const first = await sparehand(['run', '--', 'node -e 0; echo ran'], { env: oh.env, cwd: proj });
    expect([first.exitCode, first.stdout]).toEqual([0, 'ran\n']);
    expect(first.stderr).toMatch(/sparehand: note: w0 has node 18\.19\.0, here \d+\.\d+\.\d+; the command ran there with it/);
    const second = await sparehand(['run', '--', 'node -e 0; echo ran'], { env: oh.env, cwd: proj });
    expect(second.stderr).not.toContain('note:');
  });
});
