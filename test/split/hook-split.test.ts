// The hook sends a test command as `run --or-local --split auto` only where the user's config asks (`split: "auto"`,
// globally or for the project, which wins) and only when the planner can split it; never by default.
import { readFileSync, realpathSync } from 'node:fs';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { BIN, sparehand } from '../helpers/cli.js';
import { homeWith } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { gitProject } from '../helpers/project.js';

const invocation = quote([process.execPath, realpathSync(BIN)]);

/** The command the Claude Code hook answers with for `command` run in `cwd`, under `config`. */
async function rewritten(config: unknown, cwd: string, command: string): Promise<string | undefined> {
  const h = homeWith(config);
  const payload = JSON.parse(readFileSync(`${FIXTURES}agents/claude-code/payload.json`, 'utf8')) as { cwd: string; tool_input: { command: string } };
  payload.cwd = cwd;
  payload.tool_input.command = command;
  const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: JSON.stringify(payload), env: h.env, cwd });
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  return r.stdout === ''
    ? undefined
    : (JSON.parse(r.stdout) as { hookSpecificOutput: { updatedInput: { command: string } } }).hookSpecificOutput.updatedInput.command;
}

describe('the hook and split: "auto"', () => {
  const vitest = () => gitProject({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run', build: 'tsc' } }) });

  it('splits the test commands it can, where the config asks; other heavy commands as before', async () => {
    const proj = vitest();
    expect(await rewritten({ split: 'auto' }, proj, 'npm test')).toBe(`${invocation} run --or-local --split auto --timeout 399s -- 'npm test'`);
    expect(await rewritten({ split: 'auto' }, proj, 'npm test && git diff')).toBe(
      `${invocation} run --or-local --split auto --timeout 399s -- 'npm test' && git diff`,
    );
    // A part that is a chain is one run, whole.
    expect(await rewritten({ split: 'auto' }, proj, 'npm run build && npm test')).toBe(
      `${invocation} run --or-local --timeout 399s -- 'npm run build && npm test'`,
    );
  });

  it('never by default, and a project entry wins over the global setting', async () => {
    const proj = vitest();
    expect(await rewritten({}, proj, 'npm test')).toBe(`${invocation} run --or-local --timeout 399s -- 'npm test'`);
    expect(await rewritten({ split: 'auto', projects: { [proj]: { split: 'off' } } }, proj, 'npm test')).toBe(
      `${invocation} run --or-local --timeout 399s -- 'npm test'`,
    );
    expect(await rewritten({ projects: { [proj]: { split: 'auto' } } }, proj, 'npm test')).toContain(' run --or-local --split auto ');
  });

  it('a test command that cannot split goes whole', async () => {
    const proj = gitProject({ 'package.json': JSON.stringify({ scripts: { test: 'tsc && vitest run' } }) });
    expect(await rewritten({ split: 'auto' }, proj, 'npm test')).toBe(`${invocation} run --or-local --timeout 399s -- 'npm test'`);
    expect(await rewritten({ split: 'auto' }, proj, 'cargo test')).toBe(`${invocation} run --or-local --timeout 399s -- 'cargo test'`);
  });
});
