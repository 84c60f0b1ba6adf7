// Claude Code, the real CLI against the fake model: the hook rewrites `npm test` into `sparehand run`, and the
// user's permission rules for the original command hold for the rewritten one (SPEC: permission parity). Where this
// Claude Code loads mods the hook is sparehand's mod, inside Claude Code (no process per call, counted with strace);
// where it does not (an older version, a managed setting), the settings hook answers as before.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROMPT, type Sandbox, startsHook } from '../support/harness.js';
import { type Enclose, withManagedSettings } from '../support/managed.js';
import { heavyInside, lightInside } from '../support/inside.js';
import { expectDenied, expectLeftAlone, expectRewritten, scenarios } from '../support/scenario.js';
import { claudeCode } from '../support/tools.js';
import { e2eWorker, expectRan } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();

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

  test('no rule allows npm test (no --allowedTools): the rewrite is not approved either', async ({ skip }) => {
    const noRules = (_box: Sandbox, bin: string): [string, string[]] => [join(bin, 'claude'), ['-p', PROMPT, '--output-format', 'text']];
    expectDenied(await run(claudeCode, skip, { command: noRules }));
  });

  test('after agent uninstall claude-code, npm test runs as written again', async ({ skip }) => {
    expectLeftAlone(await run(claudeCode, skip, { uninstall: true }));
  });
});

describe("Claude Code's two hooks (real CLI, real sshd worker)", () => {
  test('the mod rewrites npm test inside Claude Code and it runs on the worker: no `sparehand agent hook` process starts', async ({ skip }) => {
    const s = await heavyInside(run, claudeCode, skip, worker);
    expect(s.install.output, s.why).toContain('a mod answers inside Claude Code, in place of its settings hook');
  });

  test('with the mod, a light command starts no process of sparehand’s at all', async ({ skip }) => {
    await lightInside(run, claudeCode, skip, worker);
  });

  test('an older Claude Code (2.1.240, no mods): the settings hook answers, and npm test runs on the worker', async ({ skip }) => {
    const s = await run({ ...claudeCode, cache: 'claude-code@2.1.240' }, skip, { trace: true, beforeInstall: (box) => worker.configure(box) });
    expect(s.install.output, s.why).toContain('the settings hook answers, not a mod: Claude Code 2.1.240 is older than 2.1.287');
    expectRewritten(s);
    expectRan(s, worker, { result: 0, status: 'SPAREHAND_RUN=1', line: /sparehand: ran on w0: /, copy: true });
    expect(s.run.execs!.filter(startsHook).length, s.why).toBeGreaterThan(0);
  });

  test('mods kept off by a managed setting (allowManagedModsOnly): the settings hook answers, and npm test runs on the worker', async ({ skip }) => {
    let enclose: Enclose | undefined;
    const s = await run(claudeCode, skip, {
      beforeInstall: (box) => {
        worker.configure(box);
        const e = withManagedSettings(box, { pluginConfigs: { 'cc-plugin-sec-default@builtin': { options: { allowManagedModsOnly: true } } } });
        if (typeof e === 'string') skip(e);
        enclose = e as Enclose;
      },
      enclose: (file, args) => enclose!(file, args),
    });
    expect(s.install.output, s.why).toContain('would not load a mod: your organization allows only its own mods');
    expectRewritten(s);
    expectRan(s, worker, { result: 0, status: 'SPAREHAND_RUN=1', line: /sparehand: ran on w0: /, copy: true });
  });
});
