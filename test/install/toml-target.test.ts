// sparehand's table in a TOML array of tables: added after the user's text, replaced where it is, removed exactly.
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { tomlHooksTarget } from '../../lib/agents/shapes.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { installToml, installedTomlCommands, uninstallToml } from '../../lib/install/toml-target.js';

const target = tomlHooksTarget({
  agent: 'acme',
  scope: 'user',
  path: () => '/h/config.toml',
  entry: (hook) => ({ event: 'PreToolUse', matcher: '^Bash$', command: hook.shell, timeout: 10 }),
});
const hook = hookCommand('acme', { node: '/usr/bin/node', script: '/opt/sparehand/bin/sparehand.js' });
const moved = hookCommand('acme', { node: '/usr/bin/node', script: '/new/place/bin/sparehand.js' });
const OURS = `[[hooks]]\nevent = "PreToolUse"\nmatcher = "^Bash$"\ncommand = ${JSON.stringify(hook.shell)}\ntimeout = 10`;

describe('TOML hook table', () => {
  it("is appended after the user's text, once, and removed byte for byte", () => {
    const user = '# my config\ndefault_model = "k3"\n\n[[hooks]]\nevent = "Stop"\ncommand = "notify"  # mine\n';
    const out = installToml(target, '/h/config.toml', user, hook);
    expect(out).toBe(`${user}\n${OURS}\n`);
    expect(installToml(target, '/h/config.toml', out, hook)).toBe(out);
    expect(installedTomlCommands(target, '/h/config.toml', out)).toEqual([hook.shell]);
    expect(uninstallToml(target, '/h/config.toml', out)).toBe(user);
  });

  it('is replaced where it is when sparehand moved, keeping the tables the user added after it', () => {
    const user = 'a = 1\n';
    const later = `${installToml(target, '/h/config.toml', user, hook)}\n[[hooks]]\nevent = "Stop"\ncommand = "notify"\n`;
    const out = installToml(target, '/h/config.toml', later, moved);
    expect((parse(out) as { hooks: { command: string }[] }).hooks.map((h) => h.command)).toEqual([moved.shell, 'notify']);
    expect(uninstallToml(target, '/h/config.toml', out)).toBe('a = 1\n\n[[hooks]]\nevent = "Stop"\ncommand = "notify"\n');
  });

  it('keeps one table of ours when a copy was pasted twice', () => {
    const twice = `${OURS}\n\n${OURS}\n`;
    const out = installToml(target, '/h/config.toml', twice, hook);
    expect((parse(out) as { hooks: unknown[] }).hooks).toHaveLength(1);
  });

  it('a file that held only our table is empty again; a new file is just the table', () => {
    const out = installToml(target, '/h/config.toml', undefined, hook);
    expect(out).toBe(`${OURS}\n`);
    expect(uninstallToml(target, '/h/config.toml', out).trim()).toBe('');
    expect(uninstallToml(target, '/h/config.toml', '[[hooks]]\ncommand = "x"\n')).toBe('[[hooks]]\ncommand = "x"\n');
  });

  it('refuses a file that does not parse, or whose hooks are not written as [[hooks]] tables', () => {
    expect(() => installToml(target, '/h/config.toml', 'hooks = [', hook)).toThrow(/cannot parse \/h\/config.toml/);
    expect(() => installToml(target, '/h/config.toml', 'hooks = "no"\n', hook)).toThrow(/hooks is not an array of tables/);
    expect(() => installToml(target, '/h/config.toml', 'hooks = []\n', hook)).toThrow(/hooks is not written as \[\[hooks\]\] tables/);
    expect(() => uninstallToml(target, '/h/config.toml', 'hooks = [')).toThrow(/cannot parse/);
  });
});
