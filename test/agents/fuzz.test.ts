// Thousands of malformed payloads per tool: never a crash, never invalid stdout, never a block.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENTS, type AgentId, allAgents } from '../../lib/agents/index.js';
import { classify } from '../../lib/classify/index.js';
import { answerFor } from '../../lib/hook/answer.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { BIN } from '../helpers/cli.js';
import { homeWith, tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';

const home = tempDir();
const ctx = { home, cwd: home, env: { HOME: home, PATH: '/usr/bin:/bin', SPAREHAND_NO_PROC: '1' } };
const hooked = allAgents().filter((a) => a.payload !== undefined);
const fixtureText = (id: string): string => readFileSync(`${FIXTURES}agents/${id}/payload.json`, 'utf8');
/** The tool's payload with a light command: no mutation of it may ever produce a refusal. */
const base = (id: string): unknown => JSON.parse(fixtureText(id).replaceAll('npm test', 'echo hi'));
/** The heavy payload: mutations may be answered, but only with one valid answer. */
const heavy = (id: string): unknown => JSON.parse(fixtureText(id));

/** Replaces, drops or retypes values anywhere in a payload, keeping only light commands. */
const mutate = (value: unknown): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(value) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, 0, -1, '', 'ls', [], {}, true) },
    {
      weight: 2,
      arbitrary:
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? fc
              .tuple(
                ...Object.entries(value).map(([k, v]) =>
                  fc.tuple(fc.constant(k), fc.boolean(), k === 'command' ? fc.constantFrom('ls', 'echo hi', 42) : mutate(v)),
                ),
              )
              .map((entries) => Object.fromEntries(entries.filter(([, keep]) => keep).map(([k, , v]) => [k, v])))
          : fc.constant(value),
    },
  );

/** Some string in the value is a heavy command (fast-check's random strings can be `make` or `tsc`). */
const holdsHeavy = (v: unknown): boolean =>
  typeof v === 'string' ? classify(v).heavy : typeof v === 'object' && v !== null && Object.values(v).some(holdsHeavy);

/** The answer must be nothing, the tool's "leave" text, or one JSON document; never a refusal. */
async function check(id: AgentId, text: string): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (holdsHeavy(parsed)) return checkHeavy(id, text);
  const a = await answerFor(ctx, id, text);
  expect(a.exitCode).toBe(0);
  expect(a.stderr).toBe('');
  if (a.stdout !== '' && a.stdout !== AGENTS[id]!.leaveStdout) {
    const parsed = JSON.parse(a.stdout);
    expect(JSON.stringify(parsed)).not.toMatch(/"deny"|"block"|"cancel"/);
  }
}

/** Around a heavy payload: exit 0 (or the tool's exit-2 refusal naming the replacement), stdout one JSON document or empty. */
async function checkHeavy(id: string, text: string): Promise<void> {
  const a = await answerFor(ctx, id, text);
  if (a.exitCode === 2) expect(a.stderr).toContain('run --or-local --');
  else expect([a.exitCode, a.stderr]).toEqual([0, '']);
  if (a.stdout !== '') expect(a.stdout.endsWith('\n') && !a.stdout.slice(0, -1).includes('\n')).toBe(true);
  if (a.stdout !== '') JSON.parse(a.stdout);
}

describe.each(hooked.map((a) => [a.id]))('%s survives malformed payloads', (id) => {
  it('mutated heavy payloads get nothing or one valid answer', async () => {
    await fc.assert(
      fc.asyncProperty(mutate(heavy(id)), (p) => checkHeavy(id, JSON.stringify(p) ?? 'undefined')),
      { numRuns: 1000 },
    );
  });

  it('mutated payloads', async () => {
    await fc.assert(
      fc.asyncProperty(mutate(base(id)), (p) => check(id, JSON.stringify(p) ?? 'undefined')),
      { numRuns: 1500 },
    );
  });

  it('random text and truncations', async () => {
    const full = JSON.stringify(base(id));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc.nat(full.length).map((n) => full.slice(0, n)),
        ),
        (t) => check(id, t),
      ),
      { numRuns: 1500 },
    );
  });
});

/**
 * Tools that block a call they get no valid answer for print their "leave alone" text on every path: the hook process
 * itself (bad payloads, a payload over the cap) and the installed command when sparehand is gone.
 */
describe.each(
  allAgents()
    .filter((a) => a.leaveStdout)
    .map((a) => [a.id]),
)('%s always gets an answer', (id) => {
  const leave = AGENTS[id]!.leaveStdout!;
  const hookProcess = async (input: string, extra: NodeJS.ProcessEnv = {}) => {
    const { sparehand } = await import('../helpers/cli.js');
    const { env } = homeWith('{ "rules": '); // sparehand's own config is broken: the hot path still answers
    const r = await sparehand(['agent', 'hook', '--for', id], { input, env: { ...env, SPAREHAND_NO_PROC: '1', ...extra } });
    return [r.exitCode, r.stdout, r.stderr];
  };

  it.each([
    ['not JSON', 'npm test'],
    ['an empty payload', ''],
    ['a truncated payload', fixtureText(id).slice(0, 30)],
    ['a JSON list', '["npm test"]'],
    ['an unknown shape naming a heavy command', '{"command":"npm test"}'],
    ['a payload over the size cap', `{"x":"npm test ${'a'.repeat(1100 * 1024)}"}`],
  ])('the hook process answers "leave alone" for %s', async (_what, input) => {
    expect(await hookProcess(input)).toEqual([0, leave, '']);
  });

  it('a heavy command with a broken config is still sent on (the defaults), never left alone in silence', async () => {
    const [code, stdout, stderr] = await hookProcess(fixtureText(id));
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).not.toBe(leave);
    expect(stdout).toContain('sparehand');
  });

  it('the hook process answers "leave alone" when the hook itself is switched off', async () => {
    expect(await hookProcess(fixtureText(id), { SPAREHAND: 'off' })).toEqual([0, leave, '']);
  });

  /** The command install writes for each JSON target, run by sh as the tool runs it, with this node and script. */
  const installed = (node: string, script: string): string[] =>
    AGENTS[id]!.install.targets.flatMap((t) => {
      if (t.kind !== 'json') return [];
      const command = t.commandOf(t.entry(hookCommand(id, { node, script })));
      return command === undefined ? [] : [command];
    });

  it.each([
    ['sparehand is gone', () => ({ node: process.execPath, script: join(tempDir(), 'gone', 'sparehand.js') })],
    ['node is gone', () => ({ node: join(tempDir(), 'no-node'), script: BIN })],
    ['sparehand fails', () => ({ node: process.execPath, script: writeBroken() })],
  ])('the installed command answers "leave alone" when %s', async (_what, where) => {
    const { node, script } = where();
    const commands = installed(node, script);
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      const r = await execa('sh', ['-c', command], {
        input: fixtureText(id),
        reject: false,
        env: { HOME: tempDir(), PATH: '/usr/bin:/bin' },
        extendEnv: false,
        stripFinalNewline: false,
      });
      expect([r.exitCode, r.stdout]).toEqual([0, leave]);
    }
  });

  it("the installed command passes the hook's own answer through", async () => {
    for (const command of installed(process.execPath, BIN)) {
      const { env } = homeWith();
      const r = await execa('sh', ['-c', command], {
        input: fixtureText(id),
        reject: false,
        env: { ...env, SPAREHAND_NO_PROC: '1' },
        extendEnv: false,
        stripFinalNewline: false,
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toBe(leave);
      expect(r.stdout).toMatch(/run --or-local -- 'npm test'/);
    }
  });
});

/** A script that prints junk and fails, standing for a broken sparehand install. */
function writeBroken(): string {
  const file = join(tempDir(), 'sparehand.js');
  writeFileSync(file, 'process.stdout.write("half an answer"); process.exit(3);\n');
  return file;
}

describe('the hook process', () => {
  it('leaves a payload over the size cap alone without reading it all', async () => {
    const { sparehand } = await import('../helpers/cli.js');
    const huge = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","x":"${'a'.repeat(2 * 1024 * 1024)}"}}`;
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: huge, env: { ...ctx.env } });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
  });
});
