// What may be sent: never `/`, the home folder or a tree far larger than a project; never secrets (any case).
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { sparehand } from '../helpers/cli.js';
import { gitProject } from '../helpers/project.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';

const w = sharedWorker();
const slotCopy = (proj: string) => copyPath(w.wh, w.sshd.remoteDir, proj);

describe('project root safety', () => {
  it('the home folder itself is refused (125, the reason); --or-local runs the command here', async () => {
    const r = await sparehand(['run', '--', 'true'], { env: w.wh.env, cwd: w.wh.home });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toContain(`sparehand: refusing to send ${w.wh.home} to a worker: it is your home folder, not a project`);
    expect(existsSync(slotCopy(w.wh.home))).toBe(false);
    const here = await sparehand(['run', '--or-local', '--', 'echo here'], { env: w.wh.env, cwd: w.wh.home });
    expect(here.exitCode).toBe(0);
    expect(here.stdout).toBe('here\n');
    expect(here.stderr).toContain('running locally: refusing to send');
  });

  it('/ is refused', async () => {
    const r = await sparehand(['run', '--', 'true'], { env: w.wh.env, cwd: '/' });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toContain('sparehand: refusing to send / to a worker: it is the root of the file system, not a project');
  });

  it('a folder outside git far larger than a project (a 6 GB file) is refused before anything is sent', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    execFileSync('truncate', ['-s', '6G', join(dir, 'disk.img')]);
    const r = await sparehand(['run', '--', 'true'], { env: w.wh.env, cwd: dir });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toMatch(/refusing to send .* to a worker: it holds more than 5 GB outside a git repository/);
    expect(existsSync(slotCopy(dir))).toBe(false);
  });

  it('secrets are never sent, in any case of their names', async () => {
    const secrets = [
      '.ENV',
      '.env.Local',
      'secret.PEM',
      'tls.Key',
      'cert.P12',
      'cert.pfx',
      'ID_RSA',
      'id_ed25519.pub',
      '.aws/credentials',
      '.ssh/deploy_key',
      '.gnupg/pubring.kbx',
      '.git-credentials',
      '.netrc',
      '.npmrc',
      '.pypirc',
      '.docker/config.json',
      'sub/.Env',
    ];
    const proj = gitProject(Object.fromEntries([...secrets.map((s) => [s, 'secret\n']), ['src/a.ts', 'a\n'], ['.docker/Dockerfile.dev', 'FROM x\n']]));
    const r = await sparehand(['run', '--quiet', '--', 'true'], { env: w.wh.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(secrets.filter((s) => existsSync(join(slotCopy(proj), s)))).toEqual([]);
    expect(existsSync(join(slotCopy(proj), 'src/a.ts'))).toBe(true);
    expect(existsSync(join(slotCopy(proj), '.docker/Dockerfile.dev'))).toBe(true);
  });
});
