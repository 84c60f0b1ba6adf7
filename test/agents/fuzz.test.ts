// Thousands of malformed payloads per tool: never a crash, never invalid stdout, never a block.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENTS, allAgents } from '../../lib/agents/index.js';
import { classify } from '../../lib/classify/index.js';
import { answerFor } from '../../lib/hook/answer.js';
import { tempDir } from '../helpers/context.js';
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
function check(id: string, text: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (holdsHeavy(parsed)) return checkHeavy(id, text);
  const a = answerFor(ctx, id, text);
  expect(a.exitCode).toBe(0);
  expect(a.stderr).toBe('');
  if (a.stdout !== '' && a.stdout !== AGENTS[id]!.leaveStdout) {
    const parsed = JSON.parse(a.stdout);
    expect(JSON.stringify(parsed)).not.toMatch(/"deny"|"block"|"cancel"/);
  }
}

/** Around a heavy payload: exit 0 (or the tool's exit-2 refusal naming the replacement), stdout one JSON document or empty. */
function checkHeavy(id: string, text: string): void {
  const a = answerFor(ctx, id, text);
  if (a.exitCode === 2) expect(a.stderr).toContain('run --or-local --');
  else expect([a.exitCode, a.stderr]).toEqual([0, '']);
  if (a.stdout !== '') expect(a.stdout.endsWith('\n') && !a.stdout.slice(0, -1).includes('\n')).toBe(true);
  if (a.stdout !== '') JSON.parse(a.stdout);
}

describe.each(hooked.map((a) => [a.id]))('%s survives malformed payloads', (id) => {
  it('mutated heavy payloads get nothing or one valid answer', () => {
    fc.assert(
      fc.property(mutate(heavy(id)), (p) => checkHeavy(id, JSON.stringify(p) ?? 'undefined')),
      { numRuns: 1000 },
    );
  });

  it('mutated payloads', () => {
    fc.assert(
      fc.property(mutate(base(id)), (p) => check(id, JSON.stringify(p) ?? 'undefined')),
      { numRuns: 1500 },
    );
  });

  it('random text and truncations', () => {
    const full = JSON.stringify(base(id));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(full.length).map((n) => full.slice(0, n))), (t) =>
        check(id, t),
      ),
      { numRuns: 1500 },
    );
  });
});

describe('the hook process', () => {
  it('leaves a payload over the size cap alone without reading it all', async () => {
    const { sparehand } = await import('../helpers/cli.js');
    const huge = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","x":"${'a'.repeat(2 * 1024 * 1024)}"}}`;
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: huge, env: { ...ctx.env } });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
  });
});
