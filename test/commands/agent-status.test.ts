// `agent status` and `agent list` read the registry and the files as a real process.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import { VERSION } from '../../lib/version.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';

describe('agent list', () => {
  it('lists every tool with its connection and why', async () => {
    const r = await sparehand(['agent', 'list', '--json'], { env: { HOME: tempDir(), PATH: '/usr/bin:/bin' } });
    expect(JSON.parse(r.stdout)).toEqual({ agents: allAgents().map((a) => ({ id: a.id, name: a.name, connection: a.connection, why: a.why })) });
    const text = await sparehand(['agent', 'list'], { env: { HOME: tempDir(), PATH: '/usr/bin:/bin' } });
    expect(
      text.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(allAgents().map((a) => a.id));
  });
});

describe('agent status', () => {
  it('shows user and project installs, the program and its version, and what the connection was checked against', async () => {
    const home = tempDir('sparehand-home-');
    const project = join(home, 'work', 'app');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, 'src'));
    const bin = join(home, 'bin');
    mkdirSync(bin);
    tool(bin, 'gemini', 'echo 0.61.0');
    const env = { HOME: home, PATH: bin };
    expect((await sparehand(['agent', 'install', 'gemini-cli'], { env })).exitCode).toBe(0);
    expect((await sparehand(['agent', 'install', 'claude-code', '--project', project], { env })).exitCode).toBe(0);
    const r = await sparehand(['agent', 'status', '--json'], { env, cwd: join(project, 'src') });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout) as { version: string; project: string; agents: Record<string, any>[] };
    expect(doc.version).toBe(VERSION);
    expect(doc.project).toBe(project);
    expect(doc.agents.map((a) => a.id)).toEqual(allAgents().map((a) => a.id));
    const gemini = doc.agents.find((a) => a.id === 'gemini-cli')!;
    expect(gemini.user).toEqual({
      scope: 'user',
      files: [join(home, '.gemini', 'settings.json')],
      installed: true,
      notes: [{ file: join(home, '.gemini', 'GEMINI.md'), present: true }],
    });
    expect(gemini.project.installed).toBe(false);
    expect(gemini.binary).toEqual({ name: 'gemini', path: join(bin, 'gemini'), version: '0.61.0' });
    expect(gemini.confirmed[0]).toMatchObject({ package: '@google/gemini-cli', version: '0.61.0' });
    expect(gemini.sourcesRead).toBe('2026-11-29');
    const claude = doc.agents.find((a) => a.id === 'claude-code')!;
    expect([claude.user.installed, claude.project.installed]).toEqual([false, true]);
    expect(claude.binary).toEqual({ name: 'claude', path: null, version: null });
    const text = await sparehand(['agent', 'status'], { env, cwd: project });
    expect(text.stdout).toContain(`sparehand ${VERSION}; project: ~/work/app`);
    expect(text.stdout).toContain('  program:  claude not on PATH');
    expect(text.stdout).toContain(`  program:  ${join(bin, 'gemini')} (0.61.0)`);
  });
});
