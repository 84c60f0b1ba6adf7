// Kilo Code CLI, the real CLI against the fake model: sparehand's plugin, installed in Kilo's own plugin folder,
// rewrites `npm test` into `sparehand run` in place.
import { describe, expect, test } from 'vitest';
import { expectCleanRun, expectNoHookProcess, expectNoSparehandProcess, expectRewritten, scenarios } from '../support/scenario.js';
import { kilo } from '../support/tools.js';
import { e2eWorker, expectRan } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();

describe('Kilo Code CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(kilo, skip));
  });

  test('the plugin answers inside Kilo: npm test runs on the worker, and no `sparehand agent hook` process starts', async ({ skip }) => {
    const s = await run(kilo, skip, { trace: true, beforeInstall: (box) => worker.configure(box) });
    expectRewritten(s);
    expectRan(s, worker, { result: 0, status: 'SPAREHAND_RUN=1', line: /sparehand: ran on w0: /, copy: true });
    expectNoHookProcess(s);
  });

  test('a light command starts no process of sparehand’s at all', async ({ skip }) => {
    const s = await run(kilo, skip, { trace: true, model: { command: 'ls -la' }, beforeInstall: (box) => worker.configure(box) });
    expect(s.box.fake.asked, s.why).toEqual(['ls -la']);
    expect(s.box.fake.results[0]?.text, s.why).toContain('package.json');
    expectNoSparehandProcess(s);
    expectCleanRun(s);
  });
});
