import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import type { HookCommand, JsonHookTarget } from '../../lib/agents/types.js';
import { installJson, installedCommands, onlySeed, uninstallJson } from '../../lib/install/json-target.js';

// A Claude-style target, as lib/agents/shapes.ts builds them (kept local so this test stands alone).
const target: JsonHookTarget = {
  kind: 'json',
  scope: 'user',
  path: (b) => `${b.home}/settings.json`,
  comments: true,
  arrayPath: ['hooks', 'PreToolUse'],
  entry: (hook) => ({ matcher: 'Bash', hooks: [{ type: 'command', command: hook.shell, timeout: 10 }] }),
  isOurs: (e) => JSON.stringify(e).includes('agent hook --for'),
  commandOf: (e) => (e as { hooks: { command: string }[] }).hooks[0]?.command,
  handlers: { key: 'hooks', isOurs: (h) => JSON.stringify(h).includes('agent hook --for') },
};
const CMD = '"/usr/bin/node" "/opt/sparehand/bin/sparehand.js" agent hook --for claude-code';
const HOOK: HookCommand = { node: '/usr/bin/node', script: '/opt/sparehand/bin/sparehand.js', agent: 'claude-code', shell: CMD };

const userFile = `{
    // my settings
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            { "matcher": "Edit", "hooks": [{ "type": "command", "command": "lint.sh" }] }
        ],
        "PostToolUse": []
    },
    "permissions": { "allow": ["Bash(npm test)"] }
}
`;

describe('installJson / uninstallJson', () => {
  it("appends our entry, keeping comments, layout and the user's hooks", () => {
    const out = installJson(target, 'f', userFile, HOOK);
    expect(out).toContain('// my settings');
    expect(out.startsWith('{\n    // my settings\n    "model": "opus",')).toBe(true);
    expect(parse(out)).toEqual({
      model: 'opus',
      hooks: {
        PreToolUse: [
          { matcher: 'Edit', hooks: [{ type: 'command', command: 'lint.sh' }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: CMD, timeout: 10 }] },
        ],
        PostToolUse: [],
      },
      permissions: { allow: ['Bash(npm test)'] },
    });
    expect(installJson(target, 'f', out, HOOK)).toBe(out);
    expect(installedCommands(target, 'f', out)).toEqual([CMD]);
  });

  it('replaces an older entry of ours in place and drops duplicates', () => {
    const old = { matcher: 'Bash', hooks: [{ type: 'command', command: '/old/sparehand agent hook --for x' }] };
    const user = { matcher: 'Edit', hooks: [{ type: 'command', command: 'lint.sh' }] };
    const text = JSON.stringify({ hooks: { PreToolUse: [old, user, old] } }, null, 2);
    const out = installJson(target, 'f', text, HOOK);
    expect(parse(out)).toEqual({ hooks: { PreToolUse: [target.entry(HOOK), user] } });
  });

  it("uninstall restores the user's file, and a file it created comes back to its seed", () => {
    const out = installJson(target, 'f', userFile, HOOK);
    expect(parse(uninstallJson(target, 'f', out))).toEqual(parse(userFile));
    const created = installJson(target, 'f', undefined, HOOK);
    expect(JSON.parse(created)).toEqual({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: CMD, timeout: 10 }] }] } });
    expect(onlySeed(target, 'f', uninstallJson(target, 'f', created))).toBe(true);
  });

  it("a handler the user put into sparehand's group stays, through install again and uninstall", () => {
    const mine = { type: 'command', command: '/home/me/audit.sh' };
    const installed = JSON.parse(installJson(target, 'f', undefined, HOOK));
    installed.hooks.PreToolUse[0].hooks.push(mine);
    const shared = JSON.stringify(installed, null, 2);
    const moved = { ...HOOK, shell: HOOK.shell.replace('/opt/', '/srv/') };
    const again = JSON.parse(installJson(target, 'f', shared, moved));
    expect(again.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: moved.shell, timeout: 10 }, mine] }]);
    expect(installJson(target, 'f', shared, HOOK)).toBe(shared);
    expect(JSON.parse(uninstallJson(target, 'f', shared, 1))).toEqual({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [mine] }] } });
  });

  it("leaves the user's lines as they were, and uninstall gives back the same bytes", () => {
    const compact =
      '{\n  // mine\n  "ui": { "theme": "dark" },\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Edit", "hooks": [ { "type": "command", "command": "lint" } ] }\n    ]\n  }\n}\n';
    const out = installJson(target, 'f', compact, HOOK);
    expect(out).toContain('      { "matcher": "Edit", "hooks": [ { "type": "command", "command": "lint" } ] },\n      {\n        "matcher": "Bash",');
    expect(uninstallJson(target, 'f', out)).toBe(compact);
    for (const text of ['{\n  "a": 1\n}\n', '{\n  "hooks": {\n    "PostToolUse": []\n  }\n}\n', '{\n\t"a": [1, 2]\n}']) {
      expect(uninstallJson(target, 'f', installJson(target, 'f', text, HOOK))).toBe(text);
    }
  });

  it('refuses a file it cannot parse, naming it', () => {
    expect(() => installJson(target, '/x/settings.json', '{ "a": ', HOOK)).toThrow(/cannot parse \/x\/settings.json/);
    expect(() => installJson({ ...target, comments: false }, '/x/s.json', '{ // c\n}', HOOK)).toThrow(/cannot parse/);
    expect(() => installJson(target, '/x/s.json', '[]', HOOK)).toThrow(/not a JSON object/);
    expect(() => installJson(target, '/x/s.json', '{"hooks":{"PreToolUse":{}}}', HOOK)).toThrow(/is not a list/);
    expect(() => installJson(target, '/x/s.json', '{"hooks":"none"}', HOOK)).toThrow('/x/s.json: hooks is not an object; it was left untouched');
  });

  it("keeps strict JSON files strict, in the user's key order and indentation", () => {
    const strict = { ...target, comments: false, seed: { version: 1 } };
    const text = '{\n\t"z": 1,\n\t"a": 2\n}\n';
    const out = installJson(strict, 'f', text, HOOK);
    expect(Object.keys(JSON.parse(out))).toEqual(['z', 'a', 'hooks']);
    expect(out).toContain('\n\t"hooks"');
    expect(JSON.parse(installJson(strict, 'f', undefined, HOOK)).version).toBe(1);
    expect(onlySeed(strict, 'f', uninstallJson(strict, 'f', installJson(strict, 'f', undefined, HOOK)))).toBe(true);
  });
});
