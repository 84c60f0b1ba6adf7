// Qwen Code, the real CLI against the fake model (chat completions). Its PreToolUse hook can only refuse, so the hook
// refuses `npm test` naming the replacement, and the model runs that (redirect).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Sandbox } from '../support/harness.js';
import { expectCleanRun, expectRedirected, ran, ranOutside, scenarios } from '../support/scenario.js';
import { qwenCode } from '../support/tools.js';

const run = scenarios();

describe('Qwen Code (real CLI)', () => {
  test('redirects npm test to the sparehand run command, which the model then runs', async ({ skip }) => {
    expectRedirected(await run(qwenCode, skip));
  });

  test('a model that sends npm test again after the refusal is let through the second time (no loop)', async ({ skip }) => {
    const s = await run(qwenCode, skip, { model: { onRefusal: 'repeat' } });
    const { asked, results } = s.box.fake;
    expect(asked, `the model did not repeat npm test:\n${s.why}`).toEqual(['npm test', 'npm test']);
    expect(results[0]?.text, `the first call was not refused with the replacement:\n${s.why}`).toMatch(/sparehand(\.js)?'? run --or-local -- 'npm test'/);
    expect(
      ranOutside(s).map((r) => r.id),
      `the repeated command was not let through:\n${s.why}`,
    ).toEqual([results[1]?.id]);
    expect(ran(s), `nothing ran through sparehand here:\n${s.why}`).toEqual([]);
    expectCleanRun(s);
  });

  test('--approval-mode default, the user allowed npm test: the rule agent install prints lets the replacement run', async ({ skip }) => {
    // Headless, Qwen offers its shell tool only for commands its rules allow, and refuses what it would ask about.
    // The user allowed `npm test`; the replacement is a new command for those rules: install prints the allow rule to
    // add, and the test adds exactly that.
    const withAdvice = (box: Sandbox, bin: string, installOutput: string): [string, string[]] => {
      const rules = [...installOutput.matchAll(/allow "(Bash\([^"]+\))" in permissions\.allow/g)].map((m) => m[1]!);
      expect(rules, `agent install printed no permission rule:\n${installOutput}`).not.toEqual([]);
      const file = join(box.home, '.qwen', 'settings.json');
      const settings = JSON.parse(readFileSync(file, 'utf8'));
      settings.permissions = { ...settings.permissions, allow: rules };
      writeFileSync(file, JSON.stringify(settings, null, 2));
      const [node, [script, ...args]] = qwenCode.command(box, bin);
      return [node, [script!, '--allowed-tools', 'run_shell_command(npm test)', ...args.map((a) => (a === 'yolo' ? 'default' : a))]];
    };
    expectRedirected(await run(qwenCode, skip, { command: withAdvice }));
  });
});
