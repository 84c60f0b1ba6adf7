// A limit a tool's call names is passed on as one sparehand can hold (issue 35): a huge one (OpenCode's
// `timeout: 9999999999`, Auggie's `max_wait_seconds`, Claude Code's `1e308`) becomes at most the tool's own maximum,
// or what a timer holds where the tool has none, and always a --timeout that `sparehand run` takes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../lib/run/duration.js';
import { MAX_TIMER_MS } from '../../lib/timers.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';

const payload = (tool: string, edit: (p: Record<string, Record<string, unknown>>) => void): string => {
  const p = JSON.parse(readFileSync(`${FIXTURES}agents/${tool}/payload.json`, 'utf8')) as Record<string, Record<string, unknown>>;
  edit(p);
  return JSON.stringify(p);
};
const hook = async (tool: string, input: string) => {
  const r = await sparehand(['agent', 'hook', '--for', tool], { input, env: { HOME: tempDir(), PATH: '/usr/bin:/bin' } });
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  const limit = /--timeout (\S+) --/.exec(r.stdout)?.[1];
  expect(limit, r.stdout).toBeDefined();
  return { answer: JSON.parse(r.stdout) as Record<string, Record<string, unknown>>, ms: parseDuration(limit as string) };
};

describe("a call's limit past what sparehand can hold", () => {
  it("Claude Code's timeout 1e308: the run gets the tool's ten minutes, less the margin", async () => {
    const { answer, ms } = await hook(
      'claude-code',
      payload('claude-code', (p) => ((p.tool_input as Record<string, unknown>).timeout = 1e308)),
    );
    expect(ms).toBe(570_000);
    expect(answer).toMatchObject({ hookSpecificOutput: { updatedInput: { timeout: 600_000 } } });
  });

  it("OpenCode's timeout 9999999999: its own ten minutes", async () => {
    const { ms } = await hook(
      'opencode',
      payload('opencode', (p) => ((p.args as Record<string, unknown>).timeout = 9_999_999_999)),
    );
    expect(ms).toBe(570_000);
  });

  it("Auggie's max_wait_seconds 1e12 (it names no maximum): what a timer holds, a --timeout sparehand run takes", async () => {
    const { ms } = await hook(
      'auggie',
      payload('auggie', (p) => ((p.tool_input as Record<string, unknown>).max_wait_seconds = 1e12)),
    );
    expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(ms).toBeGreaterThan(MAX_TIMER_MS * 0.9);
  });
});
