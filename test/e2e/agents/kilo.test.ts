// Kilo Code CLI, the real CLI against the fake model: sparehand's plugin, installed in Kilo's own plugin folder,
// rewrites `npm test` into `sparehand run` in place.
import { describe, test } from 'vitest';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { kilo } from '../support/tools.js';

const run = scenarios();

describe('Kilo Code CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(kilo, skip));
  });
});
