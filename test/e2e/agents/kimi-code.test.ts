// Kimi Code CLI, the real CLI against the fake model (chat completions). Its PreToolUse hook can only block, so the
// hook refuses `npm test` naming the replacement, and the model runs that (redirect).
import { describe, test } from 'vitest';
import { expectRedirected, scenarios } from '../support/scenario.js';
import { kimiCode } from '../support/tools.js';

const run = scenarios();

describe('Kimi Code CLI (real CLI)', () => {
  test('redirects npm test to the sparehand run command, which the model then runs', async ({ skip }) => {
    expectRedirected(await run(kimiCode, skip));
  });
});
