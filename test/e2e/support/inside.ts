// The checks of a hook that answers inside the tool's own process (Claude Code's mod, OpenCode's and Kilo's plugin), in
// the real CLI with a real sshd as the worker, every program start counted with strace: `npm test` is rewritten and
// runs on the worker with no `sparehand agent hook` started; a light command starts no program of sparehand's at all.
import { expect } from 'vitest';
import { type Scenario, type ScenarioOptions, expectCleanRun, expectNoHookProcess, expectNoSparehandProcess, expectRewritten } from './scenario.js';
import type { ToolDriver } from './tools.js';
import { type E2eWorker, expectRan } from './worker.js';

type Run = (driver: ToolDriver, skip: (note: string) => never, opts?: ScenarioOptions) => Promise<Scenario>;

/** `npm test`, answered inside the tool: it ran on the worker, and no hook process started. Returns the scenario. */
export async function heavyInside(run: Run, driver: ToolDriver, skip: (note: string) => never, worker: E2eWorker): Promise<Scenario> {
  const s = await run(driver, skip, { trace: true, beforeInstall: (box) => worker.configure(box) });
  expectRewritten(s);
  expectRan(s, worker, { result: 0, status: 'SPAREHAND_RUN=1', line: /sparehand: ran on w0: /, copy: true });
  expectNoHookProcess(s);
  return s;
}

/** `ls -la`, with the hook inside the tool: it ran as written, and no program of sparehand's started. */
export async function lightInside(run: Run, driver: ToolDriver, skip: (note: string) => never, worker: E2eWorker): Promise<Scenario> {
  const s = await run(driver, skip, { trace: true, model: { command: 'ls -la' }, beforeInstall: (box) => worker.configure(box) });
  expect(s.box.fake.asked, s.why).toEqual(['ls -la']);
  expect(s.box.fake.results[0]?.text, s.why).toContain('package.json');
  expectNoSparehandProcess(s);
  expectCleanRun(s);
  return s;
}
