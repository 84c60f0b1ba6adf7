// Kilo Code CLI, the real CLI against the fake model: sparehand's plugin, installed in Kilo's own plugin folder,
// rewrites `npm test` into `sparehand run` in place, inside Kilo (no process starts for a call).
import { describe, test } from 'vitest';
import { heavyInside, lightInside } from '../support/inside.js';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { kilo } from '../support/tools.js';
import { e2eWorker } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();

describe('Kilo Code CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(kilo, skip));
  });

  test('the plugin answers inside Kilo: npm test runs on the worker, and no `sparehand agent hook` process starts', async ({ skip }) => {
    await heavyInside(run, kilo, skip, worker);
  });

  test('a light command starts no process of sparehand’s at all', async ({ skip }) => {
    await lightInside(run, kilo, skip, worker);
  });
});
