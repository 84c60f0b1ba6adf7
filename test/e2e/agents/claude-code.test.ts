// Claude Code, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`, and the
// user's permission rules for the original command hold for the rewritten one (SPEC: permission parity).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { PROMPT, type Sandbox } from '../support/harness.js';
import { expectDenied, expectLeftAlone, expectRewritten, scenarios } from '../support/scenario.js';
import { claudeCode } from '../support/tools.js';

const run = scenarios();

// Adds permission rules to the throwaway ~/.claude/settings.json, keeping what install wrote there.
function addPermissions(box: Sandbox, permissions: Record<string, string[]>): void {
  const file = join(box.home, '.claude', 'settings.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  data.permissions = { ...data.permissions, ...permissions };
  writeFileSync(file, JSON.stringify(data, null, 2));
}

describe('Claude Code (real CLI)', () => {
  test('rewrites npm test into sparehand run (--allowedTools Bash)', async ({ skip }) => {
    expectRewritten(await run(claudeCode, skip));
  });

  test('the user allowed only the original (--allowedTools "Bash(npm test)"): the offloaded command still runs', async ({ skip }) => {
    const allowOnlyNpmTest = (_box: Sandbox, bin: string): [string, string[]] => [
      join(bin, 'claude'),
      ['-p', PROMPT, '--output-format', 'text', '--allowedTools', 'Bash(npm test)'],
    ];
    expectRewritten(await run(claudeCode, skip, { command: allowOnlyNpmTest }));
  });

  test('a deny rule for npm test in ~/.claude/settings.json stays a denial: nothing runs', async ({ skip }) => {
    expectDenied(await run(claudeCode, skip, { afterInstall: (box) => addPermissions(box, { deny: ['Bash(npm test)'] }) }));
  });

  test('after agent uninstall claude-code, npm test runs as written again', async ({ skip }) => {
    expectLeftAlone(await run(claudeCode, skip, { uninstall: true }));
  });
});
