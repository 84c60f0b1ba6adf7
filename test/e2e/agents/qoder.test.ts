// Qoder CLI, the real CLI with its own fake model answers (it cannot reach the fake model server: docs/real-programs.md)
// and a real sshd as the worker: the hook rewrites `npm test` into `sparehand run`, which runs it on the worker.
import { describe, expect, test } from 'vitest';
import type { Scenario } from '../support/scenario.js';
import { expectCleanRun, scenarios } from '../support/scenario.js';
import { qoder } from '../support/tools.js';
import { e2eWorker } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();

/** The Bash calls and tool results of Qoder's stream-json transcript (its stdout). */
function transcript(s: Scenario): { asked: string[]; results: string[] } {
  const asked: string[] = [];
  const results: string[] = [];
  for (const line of s.run.stdout.split('\n')) {
    let event: { type?: string; message?: { content?: unknown } };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    const content = Array.isArray(event.message?.content) ? (event.message.content as Record<string, unknown>[]) : [];
    for (const c of content) {
      if (event.type === 'assistant' && c.type === 'tool_use' && c.name === 'Bash') asked.push(String((c.input as { command?: string })?.command));
      if (event.type === 'user' && c.type === 'tool_result') results.push(typeof c.content === 'string' ? c.content : JSON.stringify(c.content));
    }
  }
  return { asked, results };
}

describe('Qoder CLI (real CLI, real sshd worker)', () => {
  test('rewrites npm test into sparehand run, which runs it on the worker', async ({ skip }) => {
    const s = await run(qoder, skip, { beforeInstall: (box) => worker.configure(box) });
    const { asked, results } = transcript(s);
    expect(asked, s.why).toEqual(['npm test']);
    expect(results.length, s.why).toBe(1);
    expect(results[0], s.why).toContain('SPAREHAND_RUN=1');
    expect(results[0], s.why).not.toContain('SPAREHAND_RUN=unset');
    expect(results[0], s.why).toMatch(/sparehand: ran on w0: /);
    expect(worker.hasCopy(s.box), s.why).toBe(true);
    expect(s.run.exitCode, s.why).toBe(0);
    // (sparehand's shared connection to the worker, kept up for later runs, is ended by the harness: harness.ts.)
    expectCleanRun(s);
  });

  test('after agent uninstall qoder, npm test runs as written again', async ({ skip }) => {
    const s = await run(qoder, skip, { uninstall: true, beforeInstall: (box) => worker.configure(box) });
    const { asked, results } = transcript(s);
    expect([asked, results.length], s.why).toEqual([['npm test'], 1]);
    expect(results[0], s.why).toContain('SPAREHAND_RUN=unset');
    expect(worker.hasCopy(s.box), s.why).toBe(false);
    expectCleanRun(s);
  });
});
