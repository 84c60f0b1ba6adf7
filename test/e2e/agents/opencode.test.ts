// OpenCode, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`.
import { describe, expect, test } from 'vitest';
import { expectCleanRun, expectNoHookProcess, expectNoSparehandProcess, expectRewritten, scenarios } from '../support/scenario.js';
import { opencode } from '../support/tools.js';
import { e2eWorker, expectRan } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();

describe('OpenCode (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(opencode, skip));
  });

  test('the plugin answers inside OpenCode: npm test runs on the worker, and no `sparehand agent hook` process starts', async ({ skip }) => {
    const s = await run(opencode, skip, { trace: true, beforeInstall: (box) => worker.configure(box) });
    expectRewritten(s);
    expectRan(s, worker, { result: 0, status: 'SPAREHAND_RUN=1', line: /sparehand: ran on w0: /, copy: true });
    expectNoHookProcess(s);
  });

  test('a light command starts no process of sparehand’s at all', async ({ skip }) => {
    const s = await run(opencode, skip, { trace: true, model: { command: 'ls -la' }, beforeInstall: (box) => worker.configure(box) });
    expect(s.box.fake.asked, s.why).toEqual(['ls -la']);
    expect(s.box.fake.results[0]?.text, s.why).toContain('package.json');
    expectNoSparehandProcess(s);
    expectCleanRun(s);
  });
});
