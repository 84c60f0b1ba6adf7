// What git tracks is the project (issue 36): a tracked file is sent whatever its name — minimist's committed
// `.npmrc` (`package-lock=false`), dotenv's `tests/.env` fixtures — and the secret list guards what git does not
// track; a tracked file that holds a credential by its content is held back, and the run and `doctor` say so with
// the setting that sends it. A real sshd whose sessions run as an ordinary user, the real CLI, README's set-up.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { gitProject, write } from '../helpers/project.js';
import { type WorkerHome, sharedWorker, workerHome } from '../helpers/worker-env.js';

const shared = sharedWorker();
const run = (proj: string, cmd: string, h: WorkerHome = shared.wh) => sparehand(['run', '--', cmd], { env: h.env, cwd: proj });
const commit = (proj: string) => {
  execFileSync('git', ['add', '-A'], { cwd: proj });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x'], { cwd: proj });
};

describe('what git tracks is sent whatever its name', () => {
  it("a committed .npmrc (minimist's: package-lock=false) reaches the worker, and an edit to it too", async () => {
    const proj = gitProject({ '.npmrc': 'package-lock=false\n', 'package.json': '{"name":"m","version":"1.0.0"}\n' });
    commit(proj);
    const r = await run(proj, 'cat .npmrc');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('package-lock=false\n');
    expect(r.stderr).not.toContain('held back');
    expect((await run(proj, 'true')).exitCode).toBe(0);
    writeFileSync(join(proj, '.npmrc'), 'package-lock=false\nlegacy-peer-deps=true\n');
    expect((await run(proj, 'cat .npmrc')).stdout).toBe('package-lock=false\nlegacy-peer-deps=true\n');
  });

  it('a .npmrc untracked at first is not sent; once it is committed, the next run sends it', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    commit(proj);
    write(proj, '.npmrc', 'legacy-peer-deps=true\n');
    expect((await run(proj, 'cat .npmrc 2>/dev/null || echo none')).stdout).toBe('none\n');
    commit(proj);
    expect((await run(proj, 'cat .npmrc 2>/dev/null || echo none')).stdout).toBe('legacy-peer-deps=true\n');
  });

  it("dotenv's tracked fixtures (tests/.env, tests/.env.local) go up; an untracked .env and .env.secret do not", async () => {
    const proj = gitProject({ 'tests/.env': 'BASIC=basic\n', 'tests/.env.local': 'LOCAL=local\n', 'a.txt': 'a\n' });
    commit(proj);
    write(proj, '.env', 'SECRET=untracked-here\n');
    write(proj, 'tests/.env.secret', 'SECRET=untracked-fixture\n');
    const r = await run(proj, 'cat tests/.env tests/.env.local; test -e .env || echo no-env; test -e tests/.env.secret || echo no-secret');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('BASIC=basic\nLOCAL=local\nno-env\nno-secret\n');
  });

  it('a tracked file in a folder the list names (.kube/config) goes up; the untracked one beside it does not', async () => {
    const proj = gitProject({ '.kube/config': 'apiVersion: v1\n', 'a.txt': 'a\n' });
    commit(proj);
    write(proj, '.kube/token', 'untracked-token\n');
    write(proj, '.kube/cache/x', 'untracked-cache\n');
    const r = await run(proj, 'cat .kube/config; ls -A .kube');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('apiVersion: v1\nconfig\n');
    // The same after a warm run's fingerprint, and after an edit here.
    expect((await run(proj, 'true')).exitCode).toBe(0);
    writeFileSync(join(proj, '.kube', 'token'), 'untracked-token-2\n');
    writeFileSync(join(proj, 'a.txt'), 'b\n');
    expect((await run(proj, 'cat a.txt; ls -A .kube')).stdout).toBe('b\nconfig\n');
  });
});

describe('a tracked file holding a credential is held back, and the run and doctor say so', () => {
  it('a tracked .npmrc with an _authToken is held back with one line naming the setting; that setting sends it', async () => {
    const proj = gitProject({ '.npmrc': '//registry.example/:_authToken=tok-tracked-secret\n', 'a.txt': 'a\n' });
    commit(proj);
    const r = await run(proj, 'cat .npmrc 2>/dev/null || echo none');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('none\n');
    const line = `sparehand: held back from the worker, for what they hold: .npmrc (an npm auth token); to send them, add "projects": {${JSON.stringify(proj)}: {"sendHeldBack": [".npmrc"]}} to ~/.config/sparehand/config.json\n`;
    expect(r.stderr.startsWith(line), r.stderr).toBe(true);
    // Said once; not again while it is the same.
    expect((await run(proj, 'true')).stderr).not.toContain('held back');
    const doctor = await sparehand(['doctor'], { env: shared.wh.env, cwd: proj });
    expect(doctor.stdout).toContain(`warn held back: ${line.slice('sparehand: '.length)}`);
    // The setting the line names sends it.
    const sending = workerHome([shared.sshd], { projects: { [proj]: { sendHeldBack: ['.npmrc'] } } });
    const sent = await run(proj, 'cat .npmrc', sending);
    expect(sent.stdout).toBe('//registry.example/:_authToken=tok-tracked-secret\n');
    await sending.close();
  });

  it('a private key block in a tracked test certificate is held back; a Yarn token edited with its size and mtime kept is not sent either', async () => {
    const proj = gitProject({
      'test/fixtures/server.pem': '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n',
      'test/fixtures/ca.pem': '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n',
      '.yarnrc.yml': 'npmAuthToken: "aaaa"\n',
      'a.txt': 'a\n',
    });
    commit(proj);
    const r = await run(proj, 'ls test/fixtures; cat .yarnrc.yml 2>/dev/null || echo no-yarnrc');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('ca.pem\nno-yarnrc\n');
    expect(r.stderr).toContain('held back from the worker, for what they hold: .yarnrc.yml (a Yarn auth token), test/fixtures/server.pem (a private key)');
    expect((await run(proj, 'true')).exitCode).toBe(0);
    const { mtime } = statSync(join(proj, '.yarnrc.yml'));
    writeFileSync(join(proj, '.yarnrc.yml'), 'npmAuthToken: "bbbb"\n');
    utimesSync(join(proj, '.yarnrc.yml'), mtime, mtime);
    const again = await run(proj, 'cat .yarnrc.yml 2>/dev/null || echo no-yarnrc');
    expect(again.stdout).toBe('no-yarnrc\n');
    expect(readFileSync(join(proj, '.yarnrc.yml'), 'utf8')).toBe('npmAuthToken: "bbbb"\n');
  });
});
