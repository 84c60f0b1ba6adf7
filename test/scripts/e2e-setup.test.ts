// The real-CLI suite's set-up works from any path, and a run of that suite with nothing set up fails.
import { execa } from 'execa';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('scripts/e2e-setup.js and the agents suite', () => {
  it('runs as a program from a folder whose path has a space and non-ASCII letters', async () => {
    const clone = join(tempDir(), 'my clone ü');
    mkdirSync(join(clone, 'scripts'), { recursive: true });
    copyFileSync(join(REPO, 'scripts', 'e2e-setup.js'), join(clone, 'scripts', 'e2e-setup.js'));
    symlinkSync(join(REPO, 'dist'), join(clone, 'dist'));
    const r = await execa(process.execPath, [join(clone, 'scripts', 'e2e-setup.js'), 'no-such-tool'], { cwd: clone, reject: false });
    // It ran main() (which refuses the unknown tool) instead of exiting 0 having done nothing.
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('unknown tool no-such-tool');
  });

  it("installs with npm's own config and cache, but a HOME of its own, so that install scripts leave the user's alone", async () => {
    const script = pathToFileURL(join(REPO, 'scripts', 'e2e-setup.js')).href;
    const { installEnv } = (await import(script)) as { installEnv: (dir: string, env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv };
    const env = installEnv('/cache/qoder', { HOME: '/home/dev', PATH: '/usr/bin' });
    expect([env.HOME, env.npm_config_userconfig, env.npm_config_cache, env.PATH]).toEqual([
      '/cache/qoder/install-home',
      '/home/dev/.npmrc',
      '/home/dev/.npm',
      '/usr/bin',
    ]);
    expect(installEnv('/c/x', { HOME: '/h', npm_config_cache: '/elsewhere' }).npm_config_cache).toBe('/elsewhere');
  });

  it('a run of the agents suite with no CLI set up fails instead of skipping every test', async () => {
    const cache = tempDir('sparehand-e2e-cache-');
    const r = await execa(join(REPO, 'node_modules', '.bin', 'vitest'), ['run', '--config', 'vitest.agents.config.ts'], {
      cwd: REPO,
      env: { SPAREHAND_E2E_CACHE: cache, NO_COLOR: '1', CI: '1' },
      reject: false,
      all: true,
    });
    expect(r.exitCode).not.toBe(0);
    expect(r.all).toContain(`e2e: no coding-tool CLI set up in ${cache}; the set-up did not run`);
  });
});
