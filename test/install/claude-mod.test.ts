// Claude Code's two hooks: install puts in the mod where the Claude Code on PATH loads one (2.1.287 and later, not kept
// off by a managed setting or turned off by the user), else the settings hook, and takes the other out; never both.
// Twice changes nothing; uninstall leaves no trace; a file of the user's where the mod goes is not written over.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOD_ID, modBlockedBy, modDir } from '../../lib/agents/claude-mod.js';
import { olderThan } from '../../lib/install/in-process.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { tree } from '../helpers/tree.js';

/** A HOME and a PATH whose `claude` says it is `version` (none: no Claude Code on PATH). */
function machine(version?: string): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('sparehand-home-');
  const bin = join(home, '..', `${home.split('/').at(-1)}-bin`);
  if (version) tool(bin, 'claude', `echo '${version} (Claude Code)'`);
  return { home, env: { HOME: home, PATH: `${bin}:/usr/bin:/bin` } };
}

const settings = (home: string) => join(home, '.claude', 'settings.json');
const mod = (home: string) => join(modDir({ home, env: {} }), 'hooks', 'sparehand.mjs');
const hookIn = (home: string): boolean => existsSync(settings(home)) && readFileSync(settings(home), 'utf8').includes('agent hook --for claude-code');
const install = (m: { env: NodeJS.ProcessEnv }, verb = 'install') => sparehand(['agent', verb, 'claude-code'], { env: m.env });

describe("Claude Code's two hooks", () => {
  it('a Claude Code that loads mods gets the mod, and no settings hook; twice changes nothing; uninstall leaves no trace', async () => {
    const m = machine('2.1.332');
    mkdirSync(dirname(settings(m.home)), { recursive: true });
    writeFileSync(settings(m.home), '{\n  "model": "opus"\n}\n');
    const before = tree(m.home, { dirs: true });
    const first = await install(m);
    expect([first.exitCode, first.stdout.split('\n').slice(0, 2)]).toEqual([
      0,
      [
        'claude-code: mod in ~/.claude/skills/sparehand/ (written)',
        '  a mod answers inside Claude Code, in place of its settings hook: Claude Code 2.1.332 loads a mod (2.1.287 and later)',
      ],
    ]);
    expect(first.stdout).toContain(`then: Claude Code loads the mod (${MOD_ID}) at its next start`);
    expect(Object.keys(tree(modDir({ home: m.home, env: {} }))).sort()).toEqual([
      '.claude-plugin/plugin.json',
      'hooks/hooks.json',
      'hooks/sparehand-core.mjs',
      'hooks/sparehand.mjs',
    ]);
    expect(JSON.parse(readFileSync(join(modDir({ home: m.home, env: {} }), 'hooks', 'hooks.json'), 'utf8'))).toEqual({ modules: ['./sparehand.mjs'] });
    expect(readFileSync(settings(m.home), 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    const after = tree(m.home, { dirs: true });
    expect((await install(m)).stdout.split('\n')[0]).toBe('claude-code: mod in ~/.claude/skills/sparehand/ (unchanged)');
    expect(tree(m.home, { dirs: true })).toEqual(after);
    expect((await install(m, 'uninstall')).exitCode).toBe(0);
    expect(tree(m.home, { dirs: true })).toEqual(before);
  });

  it.each([
    ['2.1.286', 'Claude Code 2.1.286 is older than 2.1.287, the first that loads a mod'],
    [undefined, 'claude is not on PATH, so whether it loads a mod is not known'],
  ])('Claude Code %s: the settings hook, and no mod', async (version, why) => {
    const m = machine(version);
    const r = await install(m);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'claude-code: hook in ~/.claude/settings.json (written)',
      `  the settings hook answers, not a mod: ${why}`,
    ]);
    expect([hookIn(m.home), existsSync(mod(m.home))]).toEqual([true, false]);
  });

  it('from one to the other as Claude Code changes, never both, and back: the user’s settings as they were', async () => {
    const old = machine('2.1.286');
    mkdirSync(dirname(settings(old.home)), { recursive: true });
    writeFileSync(settings(old.home), '{\n  "model": "opus"\n}\n');
    await install(old);
    expect([hookIn(old.home), existsSync(mod(old.home))]).toEqual([true, false]);
    const upgraded = { ...old, env: { ...old.env, PATH: machine('2.1.332').env.PATH } };
    const r = await install(upgraded);
    expect(r.stdout).toContain('  the settings hook taken out of ~/.claude/settings.json');
    expect([hookIn(old.home), existsSync(mod(old.home))]).toEqual([false, true]);
    expect(readFileSync(settings(old.home), 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    const back = await install(old);
    expect(back.stdout).toContain('  the mod taken out of ~/.claude/skills/sparehand/');
    expect([hookIn(old.home), existsSync(mod(old.home)), existsSync(modDir({ home: old.home, env: {} }))]).toEqual([true, false, false]);
  });

  it('a mod turned off in Claude Code (claude plugin disable): the settings hook', async () => {
    const m = machine('2.1.332');
    mkdirSync(dirname(settings(m.home)), { recursive: true });
    writeFileSync(settings(m.home), JSON.stringify({ enabledPlugins: { [MOD_ID]: false } }));
    const r = await install(m);
    expect(r.stdout).toContain(`the settings hook answers, not a mod: Claude Code 2.1.332 would not load a mod: it is turned off in Claude Code`);
    expect([hookIn(m.home), existsSync(mod(m.home))]).toEqual([true, false]);
  });

  it('a file of the user’s where the mod goes is left as it is, and nothing is written', async () => {
    const m = machine('2.1.332');
    const theirs = join(modDir({ home: m.home, env: {} }), 'hooks', 'hooks.json');
    mkdirSync(dirname(theirs), { recursive: true });
    writeFileSync(theirs, '{"modules": ["./mine.js"]}\n');
    const before = tree(m.home, { dirs: true });
    const r = await install(m);
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(`${theirs} exists and is not sparehand's; it was left untouched`);
    expect(tree(m.home, { dirs: true })).toEqual(before);
  });

  it('agent test and agent status say which of the two answers, and why', async () => {
    const m = machine('2.1.332');
    await install(m);
    const t = await sparehand(['agent', 'test', 'claude-code'], { env: m.env, cwd: m.home });
    expect([t.exitCode, t.stdout.split('\n').slice(0, 3)]).toEqual([
      0,
      [
        `claude-code (user): working — ${mod(m.home)}`,
        '  answers: a mod, inside Claude Code: Claude Code 2.1.332 loads a mod (2.1.287 and later)',
        expect.stringMatching(/^ {2}npm test: rewritten to: .* run --or-local --timeout 399s -- 'npm test'$/),
      ],
    ]);
    const s = JSON.parse((await sparehand(['agent', 'status', '--json'], { env: m.env, cwd: m.home })).stdout);
    expect(s.agents.find((a: { id: string }) => a.id === 'claude-code').answers).toEqual({
      by: 'inside',
      name: 'a mod',
      folder: modDir({ home: m.home, env: {} }),
      why: 'Claude Code 2.1.332 loads a mod (2.1.287 and later)',
    });
    // The Claude Code here went back to a version that does not load it: broken, and how to fix it.
    const older = { ...m, env: { ...m.env, PATH: machine('2.1.240').env.PATH } };
    const b = await sparehand(['agent', 'test', 'claude-code'], { env: older.env, cwd: m.home });
    expect([b.exitCode, b.stdout.split('\n').filter((l) => /problem|fix|answers/.test(l))]).toEqual([
      1,
      [
        '  answers: nothing',
        '  problem: a mod is installed, but Claude Code 2.1.240 is older than 2.1.287, the first that loads a mod',
        '  fix: sparehand agent install claude-code (puts the settings hook in its place)',
      ],
    ]);
  });
});

describe('what keeps a new enough Claude Code from loading the mod', () => {
  it('an organization that allows only its own mods, or the user who turned it off', () => {
    const managed = { pluginConfigs: { 'cc-plugin-sec-default@builtin': { options: { allowManagedModsOnly: true } } } };
    expect(modBlockedBy(managed, undefined)).toBe("your organization allows only its own mods (allowManagedModsOnly in Claude Code's managed settings)");
    expect(modBlockedBy(undefined, { enabledPlugins: { [MOD_ID]: false } })).toMatch(/^it is turned off in Claude Code/);
    expect(
      modBlockedBy(
        { pluginConfigs: { 'cc-plugin-sec-default@builtin': { options: { allowManagedModsOnly: false } } } },
        { enabledPlugins: { [MOD_ID]: true } },
      ),
    ).toBeUndefined();
    expect(modBlockedBy(undefined, undefined)).toBeUndefined();
  });

  it('versions compare as numbers', () => {
    expect([olderThan('2.1.286', '2.1.287'), olderThan('2.1.332', '2.1.287'), olderThan('2.1.287', '2.1.287'), olderThan('2.10.0', '2.9.9')]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });
});
