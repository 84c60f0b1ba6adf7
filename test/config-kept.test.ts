// A typo in the config file (a trailing comma) does not turn the hooks off in silence: they go on with the last good
// config (or the defaults), and doctor, agent test, agent status and run name the file and line first.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from './helpers/cli.js';
import { homeWith } from './helpers/context.js';

const GOOD = `{\n  "rules": { "heavy": ["mybuild"] }\n}\n`;
const BROKEN = `{\n  "rules": { "heavy": ["mybuild"] },\n}\n`;

/** What Claude Code's hook answers for `command`: the rewritten command, or undefined when left alone. */
async function hookAnswer(env: Record<string, string>, cwd: string, command: string): Promise<string | undefined> {
  const payload = { session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, cwd };
  const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { env, cwd, input: JSON.stringify(payload) });
  expect(r.exitCode).toBe(0);
  if (!r.stdout.trim()) return undefined;
  return (JSON.parse(r.stdout) as { hookSpecificOutput?: { updatedInput?: { command?: string } } }).hookSpecificOutput?.updatedInput?.command;
}

describe('a config file with a typo', () => {
  it('the hook keeps the last good config (its own rules too) and logs the file and line', async () => {
    const h = homeWith(GOOD);
    expect(await hookAnswer(h.env, h.home, 'mybuild all')).toContain('sparehand');
    writeFileSync(h.file, BROKEN);
    expect(await hookAnswer(h.env, h.home, 'mybuild all')).toContain('sparehand');
    expect(await hookAnswer(h.env, h.home, 'npm test')).toContain('sparehand');
    const log = readFileSync(join(h.home, '.local', 'state', 'sparehand', 'hook.log'), 'utf8');
    expect(log).toContain(`${h.file}:2:36: not valid JSON`);
    expect(log).toContain('using the last good config');
  });

  it('with no good config seen before, the hook goes by the built-in defaults', async () => {
    const h = homeWith(BROKEN);
    expect(await hookAnswer(h.env, h.home, 'npm test')).toContain('sparehand');
    expect(await hookAnswer(h.env, h.home, 'mybuild all')).toBeUndefined();
  });

  it('doctor, agent test, agent status and run name the file and line first', async () => {
    const h = homeWith(GOOD);
    expect((await sparehand(['agent', 'install', 'claude-code'], { env: h.env })).exitCode).toBe(0);
    writeFileSync(h.file, BROKEN);
    const where = `${h.file}:2:36: not valid JSON`;
    const doctor = await sparehand(['doctor'], { env: h.env, cwd: h.home });
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout.split('\n')[0]).toMatch(new RegExp(`^BAD config: ${where.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*using the last good config`));
    // The hook itself is not what is wrong: it still rewrites.
    expect(doctor.stdout).toMatch(/ok {2}hook: claude-code \(user\)/);
    const test = await sparehand(['agent', 'test', 'claude-code'], { env: h.env, cwd: h.home });
    expect(test.stdout.split('\n')[0]).toContain(`config: ${where}`);
    expect(test.stdout).toContain('claude-code (user): working');
    const status = await sparehand(['agent', 'status'], { env: h.env, cwd: h.home });
    expect(status.stdout.split('\n')[0]).toContain(`config: ${where}`);
    const run = await sparehand(['run', '--or-local', '--', 'echo ran'], { env: h.env, cwd: h.home });
    expect(run.stderr.split('\n')[0]).toContain(`sparehand: ${where}`);
    expect([run.exitCode, run.stdout]).toEqual([0, 'ran\n']);
  });
});
