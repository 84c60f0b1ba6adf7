// `sparehand run` where a coding tool's sandbox would put it: HOME (and sparehand's folders in it) read-only, only the
// project and a temp folder writable. Made with bubblewrap (`--ro-bind / /`, as the tools' own Linux sandboxes do);
// a real sshd is the worker. Nothing sparehand writes for itself may turn the command into 125.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';

const bwrap = (() => {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--', 'true']);
    return true;
  } catch {
    return false;
  }
})();

let sshd: Sshd;
const homes: WorkerHome[] = [];
beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  for (const h of homes) await h.close();
  await sshd?.stop();
});

/** A fresh HOME with the worker configured (no shared connection left by an earlier run). */
function home(port?: number): WorkerHome {
  const h = workerHome([port === undefined ? sshd : { ...sshd, port }]);
  homes.push(h);
  return h;
}

/** `sparehand run ARGS` with the whole file system read-only but `writable`. */
function runSandboxed(h: WorkerHome, project: string, writable: readonly string[], args: readonly string[], env: Record<string, string> = {}) {
  const binds = writable.flatMap((d) => ['--bind', d, d]);
  return execa('bwrap', ['--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', ...binds, '--', process.execPath, BIN, 'run', ...args], {
    cwd: project,
    env: { PATH: process.env.PATH, HOME: h.home, ...env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
  });
}

describe.skipIf(!bwrap)('sparehand run with HOME read-only (a sandbox)', () => {
  it("runs on the worker, with the command's own output and exit status, keeping its state in the temp folder and the project", async () => {
    const h = home();
    const project = gitProject({ 'a.txt': 'a\n' });
    const tmp = tempDir('sparehand-sbtmp-');
    const r = await runSandboxed(h, project, [project, tmp], ['--or-local', '--', 'cat a.txt; echo made > b.txt; exit 3'], { TMPDIR: tmp });
    expect(r.stderr).toMatch(/^sparehand: ran on w0: /m);
    expect([r.exitCode, r.stdout]).toEqual([3, 'a\n']);
    expect(readFileSync(join(project, 'b.txt'), 'utf8')).toBe('made\n');
    // The copy's lock was kept in the project's own folder (ignored by git), and released.
    expect(readFileSync(join(project, '.sparehand', '.gitignore'), 'utf8')).toContain('*');
    expect(readdirSync(join(project, '.sparehand', 'folders'))).toEqual([]);
    expect(existsSync(join(h.home, '.local', 'state', 'sparehand'))).toBe(false);
    expect(existsSync(join(copyPath(h, sshd.remoteDir, project), 'a.txt'))).toBe(true);
  });

  it('with no folder for an ssh socket at all (the temp folder read-only too), connects without a shared connection', async () => {
    const h = home();
    const project = gitProject({ 'a.txt': 'a\n' });
    const r = await runSandboxed(h, project, [project], ['--', 'cat a.txt; exit 4']);
    expect(r.stderr).toMatch(/^sparehand: ran on w0: /m);
    expect([r.exitCode, r.stdout]).toEqual([4, 'a\n']);
  });

  it('--or-local with the worker unreachable: runs here with its own exit status, never 125', async () => {
    const h = home(1);
    const project = gitProject({ 'a.txt': 'a\n' });
    const r = await runSandboxed(h, project, [project], ['--or-local', '--', 'cat a.txt; exit 5']);
    expect(r.stderr).toMatch(/^sparehand: running locally: .*w0/m);
    expect([r.exitCode, r.stdout]).toEqual([5, 'a\n']);
  });
});
