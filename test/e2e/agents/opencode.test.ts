// OpenCode, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`, inside OpenCode
// (sparehand's plugin answers there: no process starts for a call).
import { describe, test } from 'vitest';
import { heavyInside, lightInside } from '../support/inside.js';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { opencode } from '../support/tools.js';
import { e2eWorker } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();

describe('OpenCode (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(opencode, skip));
  });

  test('the plugin answers inside OpenCode: npm test runs on the worker, and no `sparehand agent hook` process starts', async ({ skip }) => {
    await heavyInside(run, opencode, skip, worker);
  });

  test('a light command starts no process of sparehand’s at all', async ({ skip }) => {
    await lightInside(run, opencode, skip, worker);
  });
});
