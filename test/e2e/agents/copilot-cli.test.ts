// Copilot CLI, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`.
import { describe, test } from 'vitest';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { copilotCli } from '../support/tools.js';

const run = scenarios();

describe('Copilot CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(copilotCli, skip));
  });
});
