// Copilot CLI, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`, naming
// sparehand by its bare name (Copilot refuses absolute paths outside the project, docs/real-programs.md fact 5).
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROMPT } from '../support/harness.js';
import { expectLeftAlone, expectRewritten, scenarios } from '../support/scenario.js';
import { copilotCli } from '../support/tools.js';

const run = scenarios();

describe('Copilot CLI (real CLI)', () => {
  test('rewrites npm test into sparehand run', async ({ skip }) => {
    expectRewritten(await run(copilotCli, skip));
  });

  test('with no sparehand on PATH the hook leaves npm test alone (never blocks it)', async ({ skip }) => {
    expectLeftAlone(await run(copilotCli, skip, { sparehandOnPath: false }));
  });

  test('without --allow-all-tools, the --allow-tool rule that agent install prints lets the rewrite run', async ({ skip }) => {
    // The user allowed npm test; Copilot checks the rewritten command, so install prints the rule to add.
    const advised = (_box: unknown, bin: string, installOutput: string): [string, string[]] => {
      const rules = [...installOutput.matchAll(/--allow-tool '([^']+)'/g)].map((m) => m[1]!);
      expect(rules, `agent install printed no --allow-tool rule:\n${installOutput}`).not.toEqual([]);
      return [join(bin, 'copilot'), ['--no-auto-update', '-p', PROMPT, ...['shell(npm test)', ...rules].flatMap((r) => ['--allow-tool', r])]];
    };
    expectRewritten(await run(copilotCli, skip, { command: advised }));
  });
});
