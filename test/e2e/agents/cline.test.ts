// Cline CLI, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`.
import { afterEach, describe, test } from 'vitest';
import { disposeSandbox, expectRewritten, runScenario, type Scenario } from '../support/scenario.js';
import { cline } from '../support/tools.js';

let current: Scenario | undefined;
afterEach(async () => {
  if (current) await disposeSandbox(current.box);
  current = undefined;
});

describe('Cline CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    current = await runScenario(cline, skip);
    expectRewritten(current);
  });
});
