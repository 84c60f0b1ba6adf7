// Factory droid, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`.
import { describe, test } from 'vitest';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { factoryDroid } from '../support/tools.js';

const run = scenarios();

describe('Factory droid (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(factoryDroid, skip));
  });
});
