// Install against home folders as people have them: settings files that are links into a dotfiles folder, installs
// that overlap, and a settings file that cannot be replaced.
import { execa } from 'execa';
import { chmodSync, chownSync, cpSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { tree } from '../helpers/tree.js';

const env = (home: string) => ({ HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' });

describe('install against real home folders', () => {
  it('a settings file that is a symlink (stow, chezmoi): the target gets the hook, the link stays a link', async () => {
    const home = tempDir('sparehand-home-');
    const dotfiles = join(home, 'dotfiles', 'claude');
    mkdirSync(dotfiles, { recursive: true });
    mkdirSync(join(home, '.claude'));
    const mine = '{\n  "model": "mine"\n}\n';
    writeFileSync(join(dotfiles, 'settings.json'), mine);
    const link = join(home, '.claude', 'settings.json');
    symlinkSync(join('..', 'dotfiles', 'claude', 'settings.json'), link);
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join('..', 'dotfiles', 'claude', 'settings.json'));
    const written = readFileSync(join(dotfiles, 'settings.json'), 'utf8');
    expect(written).toContain('"model": "mine"');
    expect(written).toContain('agent hook --for claude-code');
    expect((await sparehand(['agent', 'uninstall', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dotfiles, 'settings.json'), 'utf8')).toBe(mine);
  });

  it('four installs at once, then uninstall all: nothing install created is left', async () => {
    const home = tempDir('sparehand-home-');
    const before = tree(home, { dirs: true });
    const tools = ['claude-code', 'codex', 'gemini-cli', 'cursor'];
    const runs = await Promise.all(tools.map((t) => sparehand(['agent', 'install', t], { env: env(home) })));
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 0, 0]);
    for (const t of tools)
      expect((await sparehand(['agent', 'test', t, '--command', 'ls'], { env: env(home), cwd: home })).stdout).not.toContain('not installed');
    expect((await sparehand(['agent', 'uninstall', 'all'], { env: env(home) })).exitCode).toBe(0);
    expect(tree(home, { dirs: true })).toEqual(before);
  });

  it.runIf(process.getuid?.() === 0)('a settings file that cannot be replaced: a clear error naming it and the fix; no .bak, no record', async () => {
    // As root every folder is writable: run sparehand as nobody, with the settings in a folder only root may write.
    const home = tempDir('sparehand-home-');
    chownSync(home, 65534, 65534);
    const dir = join(home, '.claude');
    mkdirSync(dir, { mode: 0o755 });
    const file = join(dir, 'settings.json');
    writeFileSync(file, '{}\n');
    chownSync(file, 65534, 65534);
    const before = tree(home);
    // The clone may sit in a folder only root may enter: nobody runs a copy of the built CLI.
    const copy = tempDir('sparehand-cli-');
    chmodSync(copy, 0o755);
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(BIN, '..', '..', part), join(copy, part), { recursive: true });
    const r = await execa(process.execPath, [join(copy, 'bin', 'sparehand.js'), 'agent', 'install', 'claude-code'], {
      env: env(home),
      extendEnv: false,
      reject: false,
      uid: 65534,
      gid: 65534,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`sparehand: cannot write ${dir}/`);
    expect(r.stderr).toContain('EACCES');
    expect(r.stderr).toContain('nothing was changed');
    expect(r.stderr).toContain(`sparehand: let your user write its folder`);
    expect(r.stderr).not.toContain('internal error');
    expect(tree(home)).toEqual(before);
  });
});
