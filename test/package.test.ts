// What `npm pack` ships: bin/, the bundles (which need nothing from node_modules), the docs that hints name, the
// licence; no source maps of sources it does not ship.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/context.js';
import { FIXTURES } from './helpers/fixtures.js';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const npm = (args: string[], cwd = ROOT) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

describe('the package', () => {
  it('ships bin/, the bundles, docs/ and LICENSE, and no source maps', () => {
    const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'])) as [{ files: { path: string }[] }];
    const files = packed.files.map((f) => f.path).sort();
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => !/^(bin\/|dist\/[^/]+\.[cm]js$|docs\/[^/]+\.md$|LICENSE$|README\.md$|package\.json$)/.test(f))).toEqual([]);
    for (const f of [
      'bin/sparehand.js',
      'dist/hook.bundle.cjs',
      'dist/hook-answer.bundle.cjs',
      'dist/cli.bundle.cjs',
      'dist/cli-loader.cjs',
      // The hooks inside the tools: OpenCode's and Kilo's plugin, Claude Code's mod and its stand-in (agent test).
      'dist/opencode-plugin.mjs',
      'dist/claude-mod-core.mjs',
      'dist/claude-mod-stand-in.mjs',
      // The project's watcher on a Mac (it loads the optional fsevents at run time).
      'dist/fsevents-watcher.cjs',
      'docs/config.md',
      'docs/workers.md',
      'LICENSE',
    ]) {
      expect(files).toContain(f);
    }
  });

  it('declares no runtime dependency (what is bundled is a devDependency) and says where it comes from', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
    // But one optional native module, installed on a Mac only: the macOS watcher's way to FSEvents' flags.
    expect(pkg.optionalDependencies ?? {}).toEqual({ fsevents: '2.3.3' });
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect([typeof pkg.repository?.url, typeof pkg.homepage, typeof pkg.bugs?.url]).toEqual(['string', 'string', 'string']);
  });

  it('installs from the tarball with no script to run and no warning (scripts/ is not shipped)', () => {
    const dir = tempDir('sparehand-pack-');
    const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir])) as [{ filename: string }];
    execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', dir]);
    const shipped = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const atInstall = ['preinstall', 'install', 'postinstall', 'prepare'].filter((k) => shipped.scripts?.[k] !== undefined);
    expect(atInstall).toEqual([]);
    const r = spawnSync('npm', ['install', '-g', '--prefix', join(dir, 'prefix'), '--no-audit', '--no-fund', join(dir, packed.filename)], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect([r.status, `${r.stdout}${r.stderr}`]).toEqual([0, expect.not.stringMatching(/warn/i)]);
    expect(execFileSync(join(dir, 'prefix', 'bin', 'sparehand'), ['--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
  });

  it('runs from the unpacked tarball with no node_modules anywhere', () => {
    const dir = tempDir('sparehand-pack-');
    const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir])) as [{ filename: string }];
    execFileSync('tar', ['-xzf', join(dir, packed.filename), '-C', dir]);
    const home = tempDir('sparehand-home-');
    const run = (args: string[], input = '') =>
      execFileSync(process.execPath, [join(dir, 'package', 'bin', 'sparehand.js'), ...args], {
        input,
        encoding: 'utf8',
        env: { HOME: home, PATH: '/usr/bin:/bin' },
      });
    expect(run(['--version']).trim()).toBe(pkg.version);
    expect(run(['classify', '--json', '--', 'npm test'])).toContain('"heavy":true');
    expect(run(['help', 'config'])).toBe(readFileSync(join(ROOT, 'docs', 'config.md'), 'utf8'));
    const payload = readFileSync(`${FIXTURES}agents/claude-code/payload.json`, 'utf8');
    expect(JSON.parse(run(['agent', 'hook', '--for', 'claude-code'], payload)).hookSpecificOutput.updatedInput.command).toContain(
      `${join(dir, 'package', 'bin', 'sparehand.js')} run --or-local --timeout 399s -- 'npm test'`,
    );
  });
});
