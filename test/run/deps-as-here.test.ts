// Dependencies on the worker exactly as here (issue 21): a lock file git ignores is sent all the same; no lock
// file installs from the manifest and says so. Real npm, real packages (test/fixtures/npm/) from a registry on
// 127.0.0.1, a real sshd.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { type NpmRegistry, startNpmRegistry } from '../helpers/npm-registry.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';
import { workerOwnerHome } from '../helpers/worker-home.js';

let registry: NpmRegistry;
let sshd: Sshd;
let wh: WorkerHome;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  registry = await startNpmRegistry();
  sshd = await startSshd({ home: workerOwnerHome() });
  wh = workerHome([sshd], { env: ['npm_config_update_notifier', 'npm_config_registry'] });
  env = { ...wh.env, npm_config_registry: registry.url };
});
afterAll(async () => {
  await wh.close();
  await sshd.stop();
  await registry.stop();
});

/** A Node project that needs `ms` (from the registry), its tests under node:test, installed here with `npm install ARGS`. */
export async function msProject(gitignore: string, installArgs: readonly string[]): Promise<string> {
  const dir = tempDir('sparehand-deps-');
  const w = (p: string, s: string) => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), s);
  };
  w('package.json', JSON.stringify({ name: 'uses-ms', version: '1.0.0', private: true, scripts: { test: 'node --test test/' }, dependencies: { ms: '^2.1.3' } }));
  w('test/ms.test.js', "const test = require('node:test');\nconst assert = require('node:assert');\nconst ms = require('ms');\ntest('ms', () => assert.strictEqual(ms('2s'), 2000));\n");
  w('.gitignore', gitignore);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  // (Not execFileSync: the registry answers from this process.)
  await execa('npm', ['install', '--no-audit', '--no-fund', ...installArgs], {
    cwd: dir,
    env: { npm_config_registry: registry.url, npm_config_cache: `${dir}-npm-cache`, npm_config_update_notifier: 'false' },
  });
  return dir;
}

describe('dependencies on the worker as here', () => {
  it('a lock file .gitignore ignores (*-lock.*) is sent all the same: npm ci installs from it and npm test passes as here', async () => {
    const proj = await msProject('node_modules/\n*-lock.*\n', []);
    expect(existsSync(join(proj, 'package-lock.json'))).toBe(true);
    expect(execFileSync('npm', ['test'], { cwd: proj, env: { ...process.env, npm_config_update_notifier: 'false' } }).toString()).toMatch(/# pass 1/);
    const r = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(r.stderr).toContain('sparehand: installing dependencies on the worker: npm ci');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/# pass 1/);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj), 'package-lock.json'))).toBe(true);
  });

  it('no lock file: the worker installs from package.json (writing no lock file), says so once, and npm test passes as here', async () => {
    const proj = await msProject('node_modules/\n', ['--no-package-lock']);
    expect(existsSync(join(proj, 'package-lock.json'))).toBe(false);
    const r = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(r.stdout).toMatch(/# pass 1/);
    expect(r.exitCode).toBe(0);
    const said = r.stderr.split('\n').filter((l) => l.includes('no lock file'));
    expect(said).toEqual(['sparehand: installing dependencies on the worker (no lock file: from package.json, so versions may differ from those here): npm install --no-package-lock --no-audit --no-fund']);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj), 'node_modules', 'ms', 'package.json'))).toBe(true);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj), 'package-lock.json'))).toBe(false);
    expect(existsSync(join(proj, 'package-lock.json'))).toBe(false);
    // Said the first time only: package.json has not changed, nothing is installed again.
    const again = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).not.toContain('installing dependencies');
  });
});
