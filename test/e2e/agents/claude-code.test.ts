// Claude Code, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`, and the
// user's permission rules for the original command hold for the rewritten one (SPEC: permission parity).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'vitest';
import type { Sandbox } from '../support/harness.js';
import { disposeSandbox, expectDenied, expectRewritten, runScenario, type Scenario } from '../support/scenario.js';
import { claudeCode } from '../support/tools.js';
import { PROMPT } from '../support/harness.js';

let current: Scenario | undefined;
afterEach(async () => {
  if (current) await disposeSandbox(current.box);
  current = undefined;
});

// Adds permission rules to the throwaway ~/.claude/settings.json, keeping what install wrote.
function addPermissions(box: Sandbox, permissions: Record<string, string[]>): void {
  const file = join(box.home, '.claude', 'settings.json');
  mkdirSync(join(box.home, '.claude'), { recursive: true });
  const data = JSON.parse(readFileSync(file, 'utf8'));
  data.permissions = { ...data.permissions, ...permissions };
  writeFileSync(file, JSON.stringify(data, null, 2));
}

describe('Claude Code (real CLI)', () => {
  test('rewrites npm test into sparehand run (--allowedTools Bash)', async ({ skip }) => {
    current = await runScenario(claudeCode, skip);
    expectRewritten(current);
  });

  test('the user allowed only the original (--allowedTools "Bash(npm test)"): the offloaded command still runs', async ({ skip }) => {
    current = await runScenario(claudeCode, skip, {
      command: (_box, bin) => [join(bin, 'claude'), ['-p', PROMPT, '--output-format', 'text', '--allowedTools', 'Bash(npm test)']],
    });
    expectRewritten(current);
  });

  test('a deny rule for npm test stays a denial: nothing runs', async ({ skip }) => {
    current = await runScenario(claudeCode, skip, {
      afterInstall: (box) => addPermissions(box, { deny: ['Bash(npm test)'] }),
    });
    expectDenied(current);
  });
});
