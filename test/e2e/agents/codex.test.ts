// Codex, the real CLI against the fake model (OpenAI Responses). Codex honours a rewrite only with `allow`,
// so by default the hook refuses `npm test` naming the replacement, and the model runs that (redirect).
import { join } from 'node:path';
import { afterEach, describe, test } from 'vitest';
import { PROMPT } from '../support/harness.js';
import { disposeSandbox, expectRedirected, expectRewritten, runScenario, type Scenario } from '../support/scenario.js';
import { codex } from '../support/tools.js';

let current: Scenario | undefined;
afterEach(async () => {
  if (current) await disposeSandbox(current.box);
  current = undefined;
});

const withBypass = (bin: string): [string, string[]] => [
  join(bin, 'codex'),
  ['exec', '--skip-git-repo-check', '--color', 'never', '--dangerously-bypass-hook-trust', PROMPT],
];

describe('Codex (real CLI)', () => {
  test('redirects npm test to the sparehand run command, which the model then runs (--dangerously-bypass-hook-trust)', async ({ skip }) => {
    current = await runScenario(codex, skip, { command: (_box, bin) => withBypass(bin) });
    expectRedirected(current);
  });

  test('SPAREHAND_AGENT_CODEX=rewrite: rewrites npm test into sparehand run', async ({ skip }) => {
    current = await runScenario(codex, skip, {
      env: { SPAREHAND_AGENT_CODEX: 'rewrite' },
      command: (_box, bin) => withBypass(bin),
    });
    expectRewritten(current);
  });

  test('agent install codex --trust: the hook runs with no bypass flag', async ({ skip }) => {
    current = await runScenario(codex, skip, { installArgs: ['--trust'] });
    expectRedirected(current);
  });
});
