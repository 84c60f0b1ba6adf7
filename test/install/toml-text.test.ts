// The one TOML editor (lib/install/toml-text.ts), as data: a tool's settings (a list where it is written, with its
// comment; a layout it cannot edit is refused, not guessed), a trust entry's field, and sparehand's table in an array
// of tables (added after the user's text, replaced where it is); each taken back gives the user's bytes back.
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { tomlHooksTarget } from '../../lib/agents/shapes.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { installToml, installedTomlCommands, removeTomlField, setTomlString, tomlSettings, uninstallToml } from '../../lib/install/toml-text.js';

describe('editing a TOML settings file', () => {
  const key = ['sandbox_workspace_write', 'writable_roots'];

  it('adds to a list where it is written (a list over several lines too), and taking it out gives the bytes back', () => {
    const text = '[sandbox_workspace_write]\nwritable_roots = [\n  "/a", # mine\n  "/b",\n]\nnetwork_access = false\n';
    const doc = tomlSettings('c.toml', text);
    doc.add(key, ['/s1', '/s2']);
    expect((parse(doc.text()) as any).sandbox_workspace_write.writable_roots).toEqual(['/a', '/b', '/s1', '/s2']);
    expect(doc.text()).toContain('"/a", # mine');
    doc.take(key, ['/s1', '/s2']);
    expect(doc.text()).toBe(text);
  });

  it('a table it made goes with what it put in it; a table written another way is refused', () => {
    const doc = tomlSettings('c.toml', 'model = "m"\n');
    doc.add(key, ['/s']);
    doc.set(['sandbox_workspace_write', 'network_access'], true);
    expect(doc.text()).toBe('model = "m"\n\n[sandbox_workspace_write]\nwritable_roots = ["/s"]\nnetwork_access = true\n');
    doc.take(key, ['/s']);
    doc.prune(key, 1);
    doc.remove(['sandbox_workspace_write', 'network_access']);
    doc.prune(['sandbox_workspace_write', 'network_access'], 1);
    expect(doc.text()).toBe('model = "m"\n');
    expect(() =>
      tomlSettings('c.toml', 'sandbox_workspace_write = { network_access = false }\n').set(['sandbox_workspace_write', 'network_access'], true),
    ).toThrow(/c\.toml: sandbox_workspace_write is not written as a \[sandbox_workspace_write\] table; it was left untouched/);
  });
});

const trustTable = ['hooks', 'state', '/home/u/.codex/hooks.json:pre_tool_use:1:0'];

describe('TOML trust entry', () => {
  it("adds the entry keeping the user's text, and removes exactly it", () => {
    const user = '# my config\nmodel = "gpt-5"\n\n[features]\nhooks = true # yes\n';
    const out = setTomlString('c', user, trustTable, 'trusted_hash', 'sha256:abc');
    expect(out.startsWith(user)).toBe(true);
    expect(out).toContain('[hooks.state."/home/u/.codex/hooks.json:pre_tool_use:1:0"]\ntrusted_hash = "sha256:abc"\n');
    expect(setTomlString('c', out, trustTable, 'trusted_hash', 'sha256:abc')).toBe(out);
    const changed = setTomlString('c', out, trustTable, 'trusted_hash', 'sha256:def');
    expect((parse(changed) as any).hooks.state[trustTable[2]!].trusted_hash).toBe('sha256:def');
    expect(changed.split('trusted_hash').length).toBe(2);
    expect(removeTomlField('c', out, trustTable, 'trusted_hash')).toBe(user);
  });
  it('updates an entry the tool wrote itself, keeping its other keys', () => {
    const user = `[hooks.state."${trustTable[2]}"]\ntrusted_hash = "sha256:old"\nenabled = true\n`;
    const out = setTomlString('c', user, trustTable, 'trusted_hash', 'sha256:new');
    expect(parse(out)).toEqual({ hooks: { state: { [trustTable[2]!]: { trusted_hash: 'sha256:new', enabled: true } } } });
    expect(parse(removeTomlField('c', out, trustTable, 'trusted_hash')!)).toEqual({ hooks: { state: { [trustTable[2]!]: { enabled: true } } } });
  });
  it('a file holding only the entry goes away; an unparsable one is refused', () => {
    expect(removeTomlField('c', setTomlString('c', undefined, trustTable, 'trusted_hash', 'sha256:x'), trustTable, 'trusted_hash')).toBeUndefined();
    expect(() => setTomlString('/h/config.toml', 'a = ', trustTable, 'trusted_hash', 'x')).toThrow(/cannot parse \/h\/config.toml/);
  });
  it("goes by the settings editor's rules: a quoted key is the same key, a comment keeps its table, another layout is refused", () => {
    expect(setTomlString('c', '[a]\n"trusted_hash" = "old"\n', ['a'], 'trusted_hash', 'new')).toBe('[a]\ntrusted_hash = "new"\n');
    expect(removeTomlField('c', '[a]\n"trusted_hash" = "old"\n', ['a'], 'trusted_hash')).toBeUndefined();
    expect(removeTomlField('c', '[a]\n# mine\ntrusted_hash = "old"\n', ['a'], 'trusted_hash')).toBe('[a]\n# mine\n');
    expect(setTomlString('c', '[a]\nb = 1', ['a'], 'trusted_hash', 'h')).toBe('[a]\nb = 1\ntrusted_hash = "h"\n');
    expect(() => setTomlString('c', 'a = { b = 1 }\n', ['a'], 'trusted_hash', 'h')).toThrow(/c: a is not written as a \[a\] table/);
    expect(removeTomlField('c', 'a = { trusted_hash = "h" }\n', ['a'], 'trusted_hash')).toBe('a = { trusted_hash = "h" }\n');
  });
});

const target = tomlHooksTarget({
  agent: 'acme',
  scope: 'user',
  path: () => '/h/config.toml',
  entry: (hook) => ({ event: 'PreToolUse', matcher: '^Bash$', command: hook.shell, timeout: 10 }),
});
// A made-up tool: the TOML table is the same for every tool that keeps its hooks so.
const ACME = 'acme';
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
