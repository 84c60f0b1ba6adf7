// Continue CLI, the real CLI against the fake model. It runs no hook, so sparehand connects it with a note: the rule
// file `agent install` writes must reach the model, and the command the note spells must run through sparehand in
// Continue's login shell.
import { execaSync } from 'execa';
import { describe, expect, test } from 'vitest';
import { BIN } from '../support/harness.js';
import { expectCleanRun, expectLeftAlone, ran, ranOutside, scenarios } from '../support/scenario.js';
import { continueCli } from '../support/tools.js';

const run = scenarios();

describe('Continue CLI (real CLI)', () => {
  test('the note reaches the model, and the command it names runs through sparehand', async ({ skip }) => {
    const s = await run(continueCli, skip, { model: { followNotes: true } });
    const { asked } = s.box.fake;
    expect(asked.length, `the model asked for nothing:\n${s.why}`).toBe(1);
    expect(asked[0], `the note did not reach the model (it asked for the bare command):\n${s.why}`).toMatch(/sparehand\.js'? run --or-local -- 'npm test'$/);
    expect(ranOutside(s), `npm test ran outside sparehand:\n${s.why}`).toEqual([]);
    expect(ran(s).length, `the command the note names did not run through sparehand:\n${s.why}`).toBeGreaterThan(0);
    expectCleanRun(s);
  });

  test('agent install then agent uninstall: no note, npm test runs as written', async ({ skip }) => {
    expectLeftAlone(await run(continueCli, skip, { uninstall: true, model: { followNotes: true } }));
  });

  test('why a note: with a Claude-style hook installed where Continue reads it, the hook never runs', async ({ skip }) => {
    // Continue loads ~/.claude/settings.json's hooks (its log says so) but fires none: the claude-code hook, which
    // would rewrite `npm test`, is there, and the command still runs as written.
    const claudeHook = (box: { home: string }) => {
      const r = execaSync(process.execPath, [BIN, 'agent', 'install', 'claude-code'], {
        env: { HOME: box.home, PATH: '/usr/bin:/bin' },
        extendEnv: false,
        reject: false,
      });
      expect(r.exitCode, String(r.stderr)).toBe(0);
    };
    expectLeftAlone(await run(continueCli, skip, { uninstall: true, afterInstall: claudeHook }));
  });
});
