// A tool that has only notes (no hook) is installed when install put its note: `agent status` says so, and its note
// stays in a file it shares with another tool while that tool is uninstalled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../lib/agents/index.js';
import type { AgentSpec } from '../../lib/agents/types.js';
import { installAgents, uninstallAgents } from '../../lib/connect.js';
import { hasNote } from '../../lib/install/note-block.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir, testContext } from '../helpers/context.js';
import { noteOnlyAgents } from '../helpers/settings.js';

const noteOnly = noteOnlyAgents();

describe('a tool with only notes', () => {
  it.each(noteOnly.map((a) => [a.id, a] as const))('%s: agent status shows it installed once its note is there, and not after uninstall', async (id) => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: '/usr/bin:/bin' };
    const installed = async () => {
      const doc = JSON.parse((await sparehand(['agent', 'status', '--json'], { env, cwd: home })).stdout) as {
        agents: { id: string; user: { installed: boolean } }[];
      };
      return doc.agents.find((a) => a.id === id)!.user.installed;
    };
    expect(await installed()).toBe(false);
    expect((await sparehand(['agent', 'install', id], { env })).exitCode).toBe(0);
    expect(await installed()).toBe(true);
    expect((await sparehand(['agent', 'uninstall', id], { env })).exitCode).toBe(0);
    expect(await installed()).toBe(false);
  });

  it('keeps its note in a file shared with a hooked tool that is uninstalled', async () => {
    expect(noteOnly.length).toBeGreaterThan(0);
    const shared = (b: { home: string }) => join(b.home, 'AGENTS.md');
    const hooked = AGENTS['factory-droid']!;
    // Two tools of the registry, given one note file in common (as AGENTS.md is shared by several real tools).
    const withShared = (a: AgentSpec): AgentSpec => ({ ...a, install: { ...a.install, notes: [{ scope: 'user', path: shared }] } });
    const [notes, hook] = [withShared(noteOnly[0]!), withShared(hooked)];
    const ctx = testContext();
    await installAgents(ctx, [notes, hook], {});
    await uninstallAgents(ctx, [hook], [notes, hook], {});
    expect(hasNote(readFileSync(shared(ctx), 'utf8'))).toBe(true);
  });
});
