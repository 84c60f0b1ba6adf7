// Codex, the real CLI against the fake model (OpenAI Responses). Codex honours a rewrite only with `allow`,
// so by default the hook refuses `npm test` naming the replacement, and the model runs that (redirect).
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROMPT } from '../support/harness.js';
import { expectCleanRun, expectRedirected, expectRewritten, ran, ranOutside, scenarios } from '../support/scenario.js';
import { codex } from '../support/tools.js';

const run = scenarios();

const withBypass = (bin: string): [string, string[]] => [
  join(bin, 'codex'),
  ['exec', '--skip-git-repo-check', '--color', 'never', '--dangerously-bypass-hook-trust', PROMPT],
];

describe('Codex (real CLI)', () => {
  test('redirects npm test to the sparehand run command, which the model then runs (--dangerously-bypass-hook-trust)', async ({ skip }) => {
    expectRedirected(await run(codex, skip, { command: (_box, bin) => withBypass(bin) }));
  });

  test('SPAREHAND_AGENT_CODEX=rewrite: rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(codex, skip, { env: { SPAREHAND_AGENT_CODEX: 'rewrite' }, command: (_box, bin) => withBypass(bin) }));
  });

  test('agent install codex --trust: Codex runs the hook with no bypass flag', async ({ skip }) => {
    expectRedirected(await run(codex, skip, { installArgs: ['--trust'] }));
  });

  test('a model that sends npm test again after the refusal is let through the second time (no loop)', async ({ skip }) => {
    const s = await run(codex, skip, { model: { onRefusal: 'repeat' }, command: (_box, bin) => withBypass(bin) });
    const { asked, results } = s.box.fake;
    expect(asked, `the model did not repeat npm test:\n${s.why}`).toEqual(['npm test', 'npm test']);
    expect(results[0]?.text, `the first call was not refused with the replacement:\n${s.why}`).toMatch(
      /blocked by PreToolUse hook.*sparehand(\.js)?'? run --or-local -- 'npm test'/s,
    );
    expect(
      ranOutside(s).map((r) => r.id),
      `the repeated command was not let through:\n${s.why}`,
    ).toEqual([results[1]?.id]);
    expect(ran(s), `nothing ran through sparehand here:\n${s.why}`).toEqual([]);
    expectCleanRun(s);
  });
});
