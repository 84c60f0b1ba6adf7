// install + uninstall leave no trace (SPEC "Agents"): no backup, no folder, no temp file, not even after a kill;
// the user's own `{}`, their handler in sparehand's group and their folders stay; a backup is as private as its
// original; `install all` touches only the tools found on the machine.
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { AGENTS, allAgents } from '../../lib/agents/index.js';
import type { InstallBase } from '../../lib/agents/types.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { seedOnly, settingsTargets } from '../helpers/settings.js';
import { toolsFound, tree } from '../helpers/tree.js';

const agents = allAgents().filter((a) => a.connection !== 'none');
const env = (home: string) => ({ HOME: home, PATH: '/usr/bin:/bin' });
const base = (home: string): InstallBase => ({ home, env: env(home) });
const snapshot = (home: string) => tree(home, { dirs: true });

describe('install, then uninstall', () => {
  it.each(agents.flatMap((a) => settingsTargets(a, 'user').map((t) => [a.id, t] as const)))(
    '%s: a settings file that held only its seed (`{}`, `{"version": 1}`, an empty TOML file) stays, byte for byte',
    async (id, t) => {
      const home = tempDir('sparehand-home-');
      const path = t.path(base(home));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, seedOnly(t));
      const before = snapshot(home);
      expect((await sparehand(['agent', 'install', id], { env: env(home) })).exitCode).toBe(0);
      expect(readFileSync(path, 'utf8')).toContain(`agent hook --for ${id}`);
      expect((await sparehand(['agent', 'uninstall', id], { env: env(home) })).exitCode).toBe(0);
      expect(snapshot(home)).toEqual(before);
    },
  );

  it("a handler the user put into sparehand's group stays", async () => {
    const home = tempDir('sparehand-home-');
    const file = join(home, '.claude', 'settings.json');
    const mine = { type: 'command', command: '/home/me/audit.sh' };
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    settings.hooks.PreToolUse[0].hooks.push(mine);
    writeFileSync(file, JSON.stringify(settings, null, 2));
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse[0].hooks[1]).toEqual(mine);
    expect((await sparehand(['agent', 'uninstall', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [mine] }]);
  });

  it('the backup of a 0600 settings file is 0600, and goes with uninstall', async () => {
    const home = tempDir('sparehand-home-');
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(dirname(file));
    writeFileSync(file, '{\n  "env": { "ANTHROPIC_API_KEY": "sk-secret" }\n}\n');
    chmodSync(file, 0o600);
    const before = snapshot(home);
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(statSync(`${file}.bak`).mode & 0o777).toBe(0o600);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(before['.claude/settings.json']);
    expect((await sparehand(['agent', 'uninstall', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(snapshot(home)).toEqual(before);
  });

  it("a .bak of the user's own is not written over", async () => {
    const home = tempDir('sparehand-home-');
    const file = join(home, '.gemini', 'settings.json');
    mkdirSync(dirname(file));
    writeFileSync(file, '{"theme": "dark"}\n');
    writeFileSync(`${file}.bak`, 'my own backup\n');
    const before = snapshot(home);
    expect((await sparehand(['agent', 'install', 'gemini-cli'], { env: env(home) })).exitCode).toBe(0);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('my own backup\n');
    expect(readFileSync(`${file}.sparehand.bak`, 'utf8')).toBe('{"theme": "dark"}\n');
    expect((await sparehand(['agent', 'uninstall', 'gemini-cli'], { env: env(home) })).exitCode).toBe(0);
    expect(snapshot(home)).toEqual(before);
  });

  it.each([1, 2, 3, 5, 8, 13])('killed at its rename no. %i, install all leaves nothing that uninstall all does not remove', async (n) => {
    const home = tempDir('sparehand-home-');
    toolsFound(home, agents);
    const before = snapshot(home);
    const preload = `${FIXTURES}preload/kill-at-rename.cjs`;
    const killed = await execa(process.execPath, ['--require', preload, BIN, 'agent', 'install', 'all'], {
      env: { ...env(home), SPAREHAND_KILL_AT_RENAME: String(n) },
      extendEnv: false,
      reject: false,
    });
    expect(killed.signal).toBe('SIGKILL');
    // A temp file was left beside a settings file: the kill came between writing it and putting it in place.
    expect(Object.keys(snapshot(home)).some((f) => /sparehand-tmp-|\.\d{6,}$/.test(f))).toBe(true);
    const r = await sparehand(['agent', 'uninstall', 'all'], { env: env(home) });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const after = snapshot(home);
    // Killed while its first record was written, the standard folders that record lives in were not recorded yet.
    if (n === 1) for (const d of ['.local/', '.local/state/']) delete after[d];
    expect(after).toEqual(before);
  });
});

describe('agent install all', () => {
  it('installs the tools found here (program on PATH, or their folder), names the ones skipped and how to force one', async () => {
    const home = tempDir('sparehand-home-');
    const bin = join(home, 'bin');
    mkdirSync(bin);
    tool(bin, 'codex', '');
    mkdirSync(join(home, '.gemini'));
    const e = { HOME: home, PATH: `${bin}:/usr/bin:/bin` };
    const r = await sparehand(['agent', 'install', 'all'], { env: e });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => /^[a-z-]+: hook in /.test(l)).map((l) => l.split(':')[0])).toEqual(['codex', 'gemini-cli']);
    expect(lines).toContain('cursor: skipped: not found here (no `cursor-agent` on PATH, no ~/.cursor); to install it anyway: sparehand agent install cursor');
    expect(lines.filter((l) => l.includes(': skipped: not found here')).length).toBe(agents.length - 2);
    expect(statSync(join(home, '.codex', 'hooks.json')).isFile()).toBe(true);
    expect(() => statSync(join(home, '.cursor'))).toThrow();
    const forced = await sparehand(['agent', 'install', 'cursor'], { env: e });
    expect(forced.exitCode).toBe(0);
    expect(JSON.stringify(JSON.parse(readFileSync(AGENTS.cursor!.install.targets[0]!.path(base(home)), 'utf8')))).toContain('agent hook --for cursor');
  });
});
