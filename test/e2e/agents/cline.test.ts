// Cline CLI, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`.
import { describe, test } from 'vitest';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { cline } from '../support/tools.js';

const run = scenarios();

describe('Cline CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(cline, skip));
  });
});
