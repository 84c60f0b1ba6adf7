// sparehand's table in a TOML array of tables: added after the user's text, replaced where it is, removed exactly.
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { tomlHooksTarget } from '../../lib/agents/shapes.js';
import type { AgentId } from '../../lib/agents/types.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { installToml, installedTomlCommands, uninstallToml } from '../../lib/install/toml-target.js';

const target = tomlHooksTarget({
  agent: 'acme',
  scope: 'user',
  path: () => '/h/config.toml',
  entry: (hook) => ({ event: 'PreToolUse', matcher: '^Bash$', command: hook.shell, timeout: 10 }),
});
// A made-up tool: the TOML table is the same for every tool that keeps its hooks so.
const ACME = 'acme' as AgentId;
const hook = hookCommand(ACME, { node: '/usr/bin/node', script: '/opt/sparehand/bin/sparehand.js' });
const moved = hookCommand(ACME, { node: '/usr/bin/node', script: '/new/place/bin/sparehand.js' });
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

describe('TOML hook table under a nested array (`[[hooks.PreToolUse]]`)', () => {
  const nested = tomlHooksTarget({
    agent: 'acme',
    scope: 'user',
    path: () => '/h/config.toml',
    arrayPath: ['hooks', 'PreToolUse'],
    entry: (h) => ({ match: 'shell_run', command: h.shell, timeout: 30 }),
  });
  const NESTED = `[[hooks.PreToolUse]]\nmatch = "shell_run"\ncommand = ${JSON.stringify(hook.shell)}\ntimeout = 30`;

  it("is appended beside the user's tables of the same and other events, and removed byte for byte", () => {
    const user = '[hooks]\n\n[[hooks.SessionStart]]\ncommand = "notify"\n\n[[hooks.PreToolUse]]\nmatch = "edit"\ncommand = "lint"\n';
    const out = installToml(nested, '/h/config.toml', user, hook);
    expect(out).toBe(`${user}\n${NESTED}\n`);
    expect((parse(out) as { hooks: { PreToolUse: { command: string }[] } }).hooks.PreToolUse.map((h) => h.command)).toEqual(['lint', hook.shell]);
    expect(installToml(nested, '/h/config.toml', out, hook)).toBe(out);
    expect(installedTomlCommands(nested, '/h/config.toml', out)).toEqual([hook.shell]);
    expect(uninstallToml(nested, '/h/config.toml', out)).toBe(user);
  });

  it('is found and replaced where it is, and a new file is just the table', () => {
    expect(installToml(nested, '/h/config.toml', undefined, hook)).toBe(`${NESTED}\n`);
    const out = installToml(nested, '/h/config.toml', `${NESTED}\n\n[[hooks.Stop]]\ncommand = "x"\n`, moved);
    expect((parse(out) as { hooks: { PreToolUse: { command: string }[] } }).hooks.PreToolUse.map((h) => h.command)).toEqual([moved.shell]);
    expect(installToml(nested, '/h/config.toml', `[[hooks.PreToolUse]]\n${NESTED.split('\n').slice(1).join('\n')}\n`, hook)).toBe(`${NESTED}\n`);
  });

  it('refuses a file whose `hooks` is not a table, or whose PreToolUse is not written as tables', () => {
    expect(() => installToml(nested, '/h/config.toml', 'hooks = "no"\n', hook)).toThrow(/hooks is not a table/);
    expect(() => installToml(nested, '/h/config.toml', '[hooks]\nPreToolUse = []\n', hook)).toThrow(
      /hooks.PreToolUse is not written as \[\[hooks.PreToolUse\]\] tables/,
    );
  });
});
