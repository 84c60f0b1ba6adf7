// `agent install / uninstall` as a real process in throwaway HOMEs, for every tool in the registry.
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import type { AgentSpec, InstallBase } from '../../lib/agents/types.js';
import { hasNote } from '../../lib/install/note-block.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { keepsComments, readSettings, settingsTargets, unparsable, userHook, userSettings } from '../helpers/settings.js';
import { toolsFound, tree } from '../helpers/tree.js';

const agents = allAgents().filter((a) => a.connection !== 'none');
const env = (home: string) => ({ HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin' });
const baseOf = (home: string, project?: string): InstallBase => ({ home, env: env(home), ...(project ? { project } : {}) });
function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A HOME holding the user's settings in every JSON file and a note file of theirs. */
function populatedHome(): { home: string; before: Record<string, string> } {
  const home = tempDir('sparehand-home-');
  toolsFound(home, agents);
  const base = baseOf(home);
  for (const a of agents) {
    for (const t of settingsTargets(a, 'user')) write(t.path(base), userSettings(t));
    for (const n of (a.install.notes ?? []).filter((n) => n.scope === 'user')) write(n.path(base), '# My rules\n\nBe kind to the tests.\n');
  }
  return { home, before: tree(home, { dirs: true }) };
}

describe("agent install all, in a HOME that holds the user's settings", () => {
  let home: string;
  let before: Record<string, string>;
  let installed: Record<string, string>;
  beforeAll(async () => {
    ({ home, before } = populatedHome());
    const r = await sparehand(['agent', 'install', 'all'], { env: env(home) });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    installed = tree(home);
  });

  it.each(agents.map((a) => [a.id, a] as const))("%s: keeps the user's settings and hooks, adds ours", (_id, a) => {
    const base = baseOf(home);
    for (const t of a.install.targets.filter((t) => t.scope === 'user')) {
      const text = readFileSync(t.path(base), 'utf8');
      if (t.kind === 'file') {
        expect(t.commandOf(text)).toContain(`agent hook --for ${a.id}`);
        if (t.mode) expect(statSync(t.path(base)).mode & 0o777).toBe(t.mode);
        continue;
      }
      const { root, list } = readSettings(t, text);
      expect(root.userSetting).toBe('keep me');
      if (keepsComments(t)) expect(text).toContain('my own settings');
      expect(list[0]).toEqual(userHook(t));
      expect(list.filter((e) => t.isOurs(e))).toHaveLength(1);
      expect(t.commandOf(list.find((e) => t.isOurs(e)))).toContain(`agent hook --for ${a.id}`);
      // The previous content is kept beside it.
      expect(readFileSync(`${t.path(base)}.bak`, 'utf8')).toBe(before[t.path(base).slice(home.length + 1)]);
    }
    for (const n of (a.install.notes ?? []).filter((n) => n.scope === 'user')) {
      const text = readFileSync(n.path(base), 'utf8');
      expect(text.startsWith('# My rules\n\nBe kind to the tests.\n')).toBe(true);
      expect(hasNote(text)).toBe(true);
      expect(text).toContain("run --or-local -- 'npm test'");
    }
  });

  it('installing twice changes no byte', async () => {
    const r = await sparehand(['agent', 'install', 'all'], { env: env(home) });
    expect(r.exitCode).toBe(0);
    expect(tree(home)).toEqual(installed);
    expect(r.stdout).not.toContain('(written)');
  });

  it("uninstall restores the user's files and removes what install created", async () => {
    const r = await sparehand(['agent', 'uninstall', 'all'], { env: env(home) });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const after = tree(home, { dirs: true });
    // Byte for byte: the entry's text is removed with exactly the comma and whitespace install added; no backup, no
    // folder, no record is left.
    expect(after).toEqual(before);
    // No copy of sparehand's own files is left behind (a tool that runs every file in its hook folder would run it).
    const own = agents.flatMap((a) => a.install.targets.filter((t) => t.kind === 'file' && t.scope === 'user').map((t) => t.path(baseOf(home))));
    expect(own.length).toBeGreaterThan(0);
    for (const p of own) expect(Object.keys(after)).not.toContain(`${p.slice(home.length + 1)}.bak`);
  });
});

describe('installing again after sparehand moved', () => {
  it("replaces the old entry in place (one entry, the user's hooks kept) and refreshes the note", async () => {
    const home = tempDir('sparehand-home-');
    const e = env(home);
    expect((await sparehand(['agent', 'install', 'gemini-cli'], { env: e })).exitCode).toBe(0);
    const file = join(home, '.gemini', 'settings.json');
    const note = join(home, '.gemini', 'GEMINI.md');
    const fresh = readFileSync(file, 'utf8');
    const freshNote = readFileSync(note, 'utf8');
    const self = JSON.parse(fresh).hooks.BeforeTool[0].hooks[0].command.match(/"([^"]*sparehand\.js)"/)[1] as string;
    const moved = (t: string) => t.replaceAll(self, '/old/place/bin/sparehand.js');
    const theirs = { matcher: 'UserTool', hooks: [{ type: 'command', command: 'echo user-hook' }] };
    writeFileSync(file, moved(fresh).replace('"BeforeTool": [', `"BeforeTool": [\n      ${JSON.stringify(theirs)},`));
    writeFileSync(note, moved(freshNote));
    expect((await sparehand(['agent', 'install', 'gemini-cli'], { env: e })).exitCode).toBe(0);
    const now = parse(readFileSync(file, 'utf8')) as { hooks: { BeforeTool: unknown[] } };
    expect(now.hooks.BeforeTool).toEqual([theirs, JSON.parse(fresh).hooks.BeforeTool[0]]);
    expect(readFileSync(note, 'utf8')).toBe(freshNote);
  });
});

describe("agent install into a HOME that holds only the tools' own (empty) folders", () => {
  it('creates the files, and uninstall leaves exactly the folders that were there', async () => {
    const home = tempDir('sparehand-home-');
    toolsFound(home, agents);
    const before = tree(home, { dirs: true });
    expect((await sparehand(['agent', 'install', 'all'], { env: env(home) })).exitCode).toBe(0);
    const base = baseOf(home);
    for (const a of agents) for (const t of a.install.targets.filter((t) => t.scope === 'user')) expect(statSync(t.path(base)).isFile()).toBe(true);
    expect((await sparehand(['agent', 'uninstall', 'all'], { env: env(home) })).exitCode).toBe(0);
    expect(tree(home, { dirs: true })).toEqual(before);
  });

  it('--dry-run prints a unified diff and writes nothing', async () => {
    const home = tempDir('sparehand-home-');
    const r = await sparehand(['agent', 'install', 'claude-code', '--dry-run'], { env: env(home) });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`+++ ${join(home, '.claude', 'settings.json')}`);
    expect(r.stdout).toContain('--- /dev/null');
    expect(r.stdout).toMatch(/^\+.*agent hook --for claude-code/m);
    expect(tree(home)).toEqual({});
  });
});

describe('a file install cannot parse', () => {
  it.each(agents.filter((a) => settingsTargets(a, 'user').length > 0).map((a) => [a.id, a] as const))(
    '%s: exits non-zero naming the file, which stays byte-identical',
    async (id, a) => {
      const home = tempDir('sparehand-home-');
      const t = settingsTargets(a, 'user')[0]!;
      const path = t.path(baseOf(home));
      write(path, unparsable(t));
      const r = await sparehand(['agent', 'install', id], { env: env(home) });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toContain(`cannot parse ${path}`);
      expect(readFileSync(path, 'utf8')).toBe(unparsable(t));
      expect(Object.keys(tree(home))).toEqual([path.slice(home.length + 1)]);
    },
  );

  it("a file of the user's where sparehand would put its own file is refused", async () => {
    const own = agents.flatMap((a) => a.install.targets.filter((t) => t.kind === 'file' && t.scope === 'user').map((t) => [a, t] as const));
    expect(own.length).toBeGreaterThan(0);
    for (const [a, t] of own) {
      const home = tempDir('sparehand-home-');
      const path = t.path(baseOf(home));
      write(path, '#!/bin/sh\necho mine\n');
      const r = await sparehand(['agent', 'install', a.id], { env: env(home) });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toContain(`${path} exists and is not sparehand's`);
      expect(readFileSync(path, 'utf8')).toBe('#!/bin/sh\necho mine\n');
    }
  });
});

describe('agent install all --project', () => {
  it('writes project-level files and leaves HOME alone; uninstall empties the project again', async () => {
    const home = tempDir('sparehand-home-');
    toolsFound(home, agents);
    const project = tempDir('sparehand-project-');
    const r = await sparehand(['agent', 'install', 'all', '--project', project], { env: env(home) });
    expect(r.exitCode).toBe(0);
    // Only sparehand's own record of what install created (so uninstall removes exactly that) is in HOME.
    expect(Object.keys(tree(home))).toEqual(['.local/state/sparehand/created.json']);
    const base = baseOf(home, project);
    for (const a of agents) {
      for (const t of a.install.targets.filter((t) => t.scope === 'project')) {
        const path = t.path(base);
        expect(path.startsWith(`${project}/`)).toBe(true);
        expect(statSync(path).isFile()).toBe(true);
      }
    }
    const again = tree(project);
    expect((await sparehand(['agent', 'install', 'all', '--project', project], { env: env(home) })).exitCode).toBe(0);
    expect(tree(project)).toEqual(again);
    expect((await sparehand(['agent', 'uninstall', 'all', '--project', project], { env: env(home) })).exitCode).toBe(0);
    expect(tree(project, { dirs: true })).toEqual({});
    expect(tree(home)).toEqual({});
  });
});

describe('agent install --project: files a team commits', () => {
  it('name no path of this machine, and say so', async () => {
    const home = tempDir('sparehand-home-');
    toolsFound(home, agents);
    const project = tempDir('sparehand-project-');
    const r = await sparehand(['agent', 'install', 'all', '--project', project], { env: env(home) });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("the project's files call `sparehand` from PATH (no path of this machine)");
    const files = tree(project);
    expect(Object.keys(files).length).toBeGreaterThan(10);
    const repo = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
    for (const [file, text] of Object.entries(files)) {
      expect([file, text.includes(process.execPath) || text.includes(repo)]).toEqual([file, false]);
    }
  });

  it('the installed hook runs the `sparehand` on PATH, and does nothing (exit 0) where there is none', async () => {
    const home = tempDir('sparehand-home-');
    const project = tempDir('sparehand-project-');
    const bin = join(home, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, 'sparehand'));
    const withSparehand = { ...env(home), PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` };
    expect((await sparehand(['agent', 'install', 'claude-code', '--project', project], { env: withSparehand })).exitCode).toBe(0);
    const t = await sparehand(['agent', 'test', 'claude-code'], { env: withSparehand, cwd: project });
    expect([t.exitCode, t.stdout]).toEqual([0, expect.stringContaining('claude-code (project): working')]);
    const command = (parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8')) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } })
      .hooks.PreToolUse[0]!.hooks[0]!.command;
    const payload = JSON.stringify({ session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' }, cwd: project });
    const none = await execa('bash', ['-c', command], {
      env: { HOME: home, PATH: '/usr/bin:/bin' },
      extendEnv: false,
      input: payload,
      reject: false,
      cwd: project,
    });
    expect([none.exitCode, none.stdout, none.stderr]).toEqual([0, '', '']);
  });

  it('refuses a --project folder that is not there, and writes nothing', async () => {
    const home = tempDir('sparehand-home-');
    const missing = join(home, 'no', 'such', 'dir');
    const r = await sparehand(['agent', 'install', 'claude-code', '--project', missing], { env: env(home) });
    expect([r.exitCode, r.stderr.split('\n')[0]]).toEqual([2, `sparehand: --project ${missing}: no such folder (${missing})`]);
    expect(tree(home)).toEqual({});
  });
});

describe('shared note files', () => {
  it('uninstalling one tool keeps the note another installed tool reads', async () => {
    const home = tempDir('sparehand-home-');
    const project = tempDir('sparehand-project-');
    const shared = agents.filter((a) => a.install.notes?.some((n) => n.scope === 'project' && n.path(baseOf(home, project)) === join(project, 'AGENTS.md')));
    expect(shared.length).toBeGreaterThan(1);
    const [first, second] = shared as [AgentSpec, AgentSpec];
    for (const a of [first, second]) expect((await sparehand(['agent', 'install', a.id, '--project', project], { env: env(home) })).exitCode).toBe(0);
    expect((await sparehand(['agent', 'uninstall', first.id, '--project', project], { env: env(home) })).exitCode).toBe(0);
    expect(hasNote(readFileSync(join(project, 'AGENTS.md'), 'utf8'))).toBe(true);
    expect((await sparehand(['agent', 'uninstall', second.id, '--project', project], { env: env(home) })).exitCode).toBe(0);
    expect(() => statSync(join(project, 'AGENTS.md'))).toThrow();
  });
});

describe('tools that cannot be connected', () => {
  it('install says why', async () => {
    const none = allAgents().filter((a) => a.connection === 'none');
    expect(none.length).toBeGreaterThan(0);
    for (const a of none) {
      const r = await sparehand(['agent', 'install', a.id], { env: env(tempDir()) });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${a.id}: cannot be connected: ${a.why}\n`);
    }
  });

  it('an unknown tool is a usage error listing the tools', async () => {
    const r = await sparehand(['agent', 'install', 'nope'], { env: env(tempDir()) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown tool "nope"');
    expect(r.stderr).toContain('claude-code');
  });
});

describe('what install created, and only that, goes on uninstall', () => {
  it("keeps the user's own empty hook list, and removes the containers install made", async () => {
    const home = tempDir('sparehand-home-');
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const mine = '{\n  "hooks": {\n    "PreToolUse": []\n  },\n  "model": "x"\n}\n';
    writeFileSync(file, mine);
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect((await sparehand(['agent', 'uninstall', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(mine);

    writeFileSync(file, '{\n  "model": "x"\n}\n');
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse).toHaveLength(1);
    expect((await sparehand(['agent', 'uninstall', 'claude-code'], { env: env(home) })).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ model: 'x' });
  });
});
