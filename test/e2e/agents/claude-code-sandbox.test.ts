// Claude Code with its sandbox on (bubblewrap + socat on Linux), the real CLI against the fake model, a real sshd as
// the worker: as Claude Code ships it, the rewritten heavy command runs here with its own output and exit status
// (its proxy refuses the worker's host: one line says so and names the setting); after `agent install claude-code
// --sandbox-access`, it runs on the worker through that proxy, without a shared ssh connection (no unix sockets).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Sandbox } from '../support/harness.js';
import { expectRewritten, scenarios } from '../support/scenario.js';
import { claudeCode } from '../support/tools.js';
import { e2eWorker, expectRan, testsExitWith } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();
const UNDER = '/var/tmp';
const missing = ['bwrap', 'socat'].filter((p) => {
  try {
    execFileSync('sh', ['-c', `command -v ${p}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});

/** The sandbox switched on (and required: a machine without it fails rather than running unsandboxed). */
function prepare(box: Sandbox): void {
  worker.configure(box);
  const file = join(box.home, '.claude', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8'));
  settings.sandbox = { enabled: true, failIfUnavailable: true };
  writeFileSync(file, JSON.stringify(settings, null, 2));
  testsExitWith(box, 7);
}

describe('Claude Code with its sandbox on (real CLI, real sshd worker)', () => {
  test('as shipped: the heavy command runs here in the sandbox, its own output and exit status, never 125', async ({ skip }) => {
    if (missing.length > 0) skip(`the sandbox needs ${missing.join(' and ')}: apt-get install bubblewrap socat`);
    const s = await run(claudeCode, skip, { under: UNDER, beforeInstall: prepare });
    expectRewritten(s);
    const line =
      /sparehand: running locally: Claude Code's sandbox did not let sparehand through .*refused 127\.0\.0\.1:\d+.*sparehand agent install claude-code --sandbox-access.*allowedDomains \+= "127\.0\.0\.1:\d+"/;
    expectRan(s, worker, { result: 0, status: 'Exit code 7', line, copy: false });
  });

  test("after agent install claude-code --sandbox-access: it runs on the worker, through the sandbox's proxy", async ({ skip }) => {
    if (missing.length > 0) skip(`the sandbox needs ${missing.join(' and ')}: apt-get install bubblewrap socat`);
    const s = await run(claudeCode, skip, { under: UNDER, installArgs: ['--sandbox-access'], beforeInstall: prepare });
    expectRewritten(s);
    expectRan(s, worker, { result: 0, status: 'Exit code 7', line: /sparehand: ran on w0: /, copy: true });
    expect(JSON.parse(readFileSync(join(s.box.home, '.claude', 'settings.json'), 'utf8')).sandbox.enabled).toBe(true);
  });
});
