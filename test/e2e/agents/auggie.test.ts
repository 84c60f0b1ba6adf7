// Auggie, the real CLI against a fake of Augment's API: the hook rewrites `npm test` into `sparehand run`.
import { describe, test } from 'vitest';
import { expectLeftAlone, expectRewritten, scenarios } from '../support/scenario.js';
import { auggie } from '../support/tools.js';

const run = scenarios();

describe('Auggie (real CLI)', () => {
  test('rewrites npm test into sparehand run (in its login shell, by absolute path)', async ({ skip }) => {
    expectRewritten(await run(auggie, skip));
  });

  test('agent install then agent uninstall: npm test runs as written', async ({ skip }) => {
    expectLeftAlone(await run(auggie, skip, { uninstall: true }));
  });
});
