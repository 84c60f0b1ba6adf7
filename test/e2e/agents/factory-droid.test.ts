// Factory droid, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROMPT, type Sandbox } from '../support/harness.js';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { factoryDroid } from '../support/tools.js';

const run = scenarios();

describe('Factory droid (real CLI)', () => {
  test('rewrites npm test into sparehand run (--auto high)', async ({ skip }) => {
    expectRewritten(await run(factoryDroid, skip));
  });

  test('--auto low: the commandAllowlist entry that agent install prints lets the rewrite run', async ({ skip }) => {
    // Under --auto low droid runs the model's low-risk `npm test` by itself, but checks the rewritten command
    // against its commandAllowlist: install prints the entry to add, and the test adds exactly that.
    let advice: string[] = [];
    const addAdvice = (box: Sandbox) => {
      const file = join(box.home, '.factory', 'settings.json');
      const settings = JSON.parse(readFileSync(file, 'utf8'));
      settings.commandAllowlist = [...(settings.commandAllowlist ?? []), ...advice];
      writeFileSync(file, JSON.stringify(settings, null, 2));
    };
    const autoLow = (box: Sandbox, bin: string, installOutput: string): [string, string[]] => {
      advice = [...installOutput.matchAll(/add "([^"]+)" to commandAllowlist/g)].map((m) => m[1]!);
      expect(advice, `agent install printed no commandAllowlist entry:\n${installOutput}`).not.toEqual([]);
      addAdvice(box);
      return [join(bin, 'droid'), ['exec', '--auto', 'low', '-m', 'custom:fake-0', PROMPT]];
    };
    expectRewritten(await run(factoryDroid, skip, { command: autoLow }));
  });
});
