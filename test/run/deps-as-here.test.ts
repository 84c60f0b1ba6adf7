// Dependencies on the worker exactly as here (issue 21): a lock file git ignores is sent all the same; no lock
// file installs from the manifest and says so. Real npm, real packages (test/fixtures/npm/) from a registry on
// 127.0.0.1, a real sshd.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { type NpmRegistry, msProject } from '../helpers/npm-registry.js';
import { startNpmWorker } from '../helpers/npm-worker.js';
import type { Sshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath } from '../helpers/worker-env.js';

let registry: NpmRegistry;
let sshd: Sshd;
let wh: WorkerHome;
let env: NodeJS.ProcessEnv;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ registry, sshd, wh, env, stop } = await startNpmWorker());
});
afterAll(() => stop?.());

describe('dependencies on the worker as here', () => {
  it('a lock file .gitignore ignores (*-lock.*) is sent all the same: npm ci installs from it and npm test passes as here', async () => {
    const proj = await msProject(registry, 'node_modules/\n*-lock.*\n', []);
    expect(existsSync(join(proj, 'package-lock.json'))).toBe(true);
    expect(execFileSync('npm', ['test'], { cwd: proj, env: { ...process.env, npm_config_update_notifier: 'false' } }).toString()).toMatch(/# pass 1/);
    const r = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(r.stderr).toContain('sparehand: installing dependencies on the worker: npm ci');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/# pass 1/);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj), 'package-lock.json'))).toBe(true);
  });

  it('no lock file: the worker installs from package.json (writing no lock file), says so once, and npm test passes as here', async () => {
    const proj = await msProject(registry, 'node_modules/\n', ['--no-package-lock']);
    expect(existsSync(join(proj, 'package-lock.json'))).toBe(false);
    // doctor, in the project, names it before any run.
    const doc = await sparehand(['doctor'], { env, cwd: proj });
    expect(doc.stdout).toMatch(
      /^ok {2}dependencies: no lock file in the project root: the worker installs from package\.json \(npm install --no-package-lock --no-audit --no-fund\), so its versions may differ from those here/m,
    );
    const r = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(r.stdout).toMatch(/# pass 1/);
    expect(r.exitCode).toBe(0);
    const said = r.stderr.split('\n').filter((l) => l.includes('no lock file'));
    expect(said).toEqual([
      'sparehand: installing dependencies on the worker (no lock file: from package.json, so versions may differ from those here): npm install --no-package-lock --no-audit --no-fund',
    ]);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj), 'node_modules', 'ms', 'package.json'))).toBe(true);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj), 'package-lock.json'))).toBe(false);
    expect(existsSync(join(proj, 'package-lock.json'))).toBe(false);
    // Said the first time only: package.json has not changed, nothing is installed again.
    const again = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).not.toContain('installing dependencies');
  });

  it('a failed install is remembered by what it was made from: not tried again, one line with what the installer said, here at once with --or-local; worker reset forgets it', async () => {
    const proj = await msProject(registry, 'node_modules/\n', ['--ignore-scripts']);
    // An install step that works here (its scripts skipped) and fails on the worker, as a missing system library does.
    const pkg = JSON.parse(readFileSync(join(proj, 'package.json'), 'utf8'));
    pkg.scripts.preinstall = 'echo "gyp ERR! libfoo-dev is not installed" >&2; exit 3';
    writeFileSync(join(proj, 'package.json'), JSON.stringify(pkg));
    const first = await sparehand(['run', '--or-local', '--', 'npm test'], { env, cwd: proj });
    expect(first.stderr).toContain('sparehand: installing dependencies on the worker: npm ci');
    expect(first.stderr).toMatch(
      /running locally: w0: installing dependencies failed on the worker \(exit \d+\): npm ci --no-audit --no-fund; it said: .*libfoo-dev is not installed/,
    );
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/# pass 1/);

    const again = await sparehand(['run', '--or-local', '--', 'npm test'], { env, cwd: proj });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/# pass 1/);
    const lines = again.stderr.split('\n').filter((l) => l.startsWith('sparehand:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^sparehand: running locally: w0 cannot install this project's dependencies \(remembered from an earlier run: .*libfoo-dev is not installed.*\)$/,
    );

    const without = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(without.exitCode).toBe(125);
    expect(without.stderr).toContain("w0 cannot install this project's dependencies");
    expect(without.stderr).toContain('sparehand worker reset w0');
    expect(without.stderr).not.toContain('installing dependencies on the worker');

    const doc = await sparehand(['doctor'], { env, cwd: proj });
    expect(doc.stdout).toMatch(
      /^BAD dependencies: w0 cannot install this project's dependencies \(remembered .*libfoo-dev is not installed.*`sparehand worker reset w0` to try again$/m,
    );
    const reset = await sparehand(['worker', 'reset'], { env, cwd: proj });
    expect(reset.exitCode).toBe(0);
    expect((await sparehand(['doctor'], { env, cwd: proj })).stdout).not.toMatch(/dependencies: w0 cannot install/);
    const after = await sparehand(['run', '--or-local', '--', 'npm test'], { env, cwd: proj });
    expect(after.stderr).toContain('sparehand: installing dependencies on the worker: npm ci');
    expect(after.exitCode).toBe(0);
  });
});
