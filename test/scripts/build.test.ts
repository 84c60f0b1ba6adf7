// scripts/build.js builds beside dist/ and swaps it in: a linked `sparehand` (and every installed hook) keeps
// working while the clone rebuilds (`npm test`, `npm pack`).
import { execa } from 'execa';
import { cpSync, existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('scripts/build.js', () => {
  // A whole build (tsc's emit and the bundles), with the CLI started again and again beside it: a minute or two on a
  // loaded machine.
  it('while a build runs, the built CLI still loads and answers', { timeout: 180_000 }, async () => {
    // A copy of the clone (its own dist/), so that this build does not swap the dist/ other tests run.
    const clone = join(tempDir(), 'clone');
    for (const part of ['bin', 'lib', 'scripts', 'dist', 'package.json', 'tsconfig.json']) cpSync(join(REPO, part), join(clone, part), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'));
    const bin = join(clone, 'bin', 'sparehand.js');
    const home = tempDir('sparehand-home-');
    const build = execa(process.execPath, [join(clone, 'scripts', 'build.js')], { cwd: clone, reject: false });
    let done = false;
    void build.finally(() => (done = true));
    const failures: string[] = [];
    let calls = 0;
    while (!done) {
      const [v, h] = await Promise.all([
        execa(process.execPath, [bin, '--version'], { env: { HOME: home, PATH: process.env.PATH }, reject: false }),
        execa(process.execPath, [bin, 'classify', '--json', '--', 'npm test'], { env: { HOME: home, PATH: process.env.PATH }, reject: false }),
      ]);
      calls++;
      if (v.exitCode !== 0 || !/^\d+\.\d+\.\d+$/.test(v.stdout.trim())) failures.push(`--version: ${v.exitCode} ${v.stderr}`);
      if (h.exitCode !== 0 || !h.stdout.includes('"heavy":true')) failures.push(`classify: ${h.exitCode} ${h.stderr}`);
    }
    expect((await build).exitCode).toBe(0);
    expect(calls).toBeGreaterThan(3);
    expect(failures).toEqual([]);
    // The build leaves nothing beside dist/.
    expect(readdirSync(clone).filter((f) => f.startsWith('.dist-'))).toEqual([]);
    expect(existsSync(join(clone, 'dist', 'cli.bundle.cjs'))).toBe(true);
  });
});
