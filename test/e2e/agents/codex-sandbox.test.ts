// Codex in its workspace-write sandbox (Landlock + seccomp on Linux), the real CLI against the fake model, a real sshd
// as the worker: as Codex ships it, the redirected heavy command runs here with its own output and exit status (the
// sandbox cuts the network: one line says so and names the setting); after `agent install codex --sandbox-access`,
// it runs on the worker from inside the same sandbox.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Sandbox } from '../support/harness.js';
import { expectRedirected, scenarios } from '../support/scenario.js';
import { codex } from '../support/tools.js';
import { e2eWorker, expectRan, testsExitWith } from '../support/worker.js';

const run = scenarios();
const worker = e2eWorker();
// Outside /tmp, which the sandbox leaves writable (users' HOMEs are not there).
const UNDER = '/var/tmp';

/** Codex's sandbox as it runs in a project, and a test script that fails with its own status. */
function prepare(box: Sandbox): void {
  worker.configure(box);
  const config = join(box.home, '.codex', 'config.toml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('sandbox_mode = "danger-full-access"', 'sandbox_mode = "workspace-write"'));
  testsExitWith(box, 7);
}

describe('Codex in workspace-write (real CLI, real sshd worker)', () => {
  test('as shipped: the heavy command runs here in the sandbox, its own output and exit status, never 125', async ({ skip }) => {
    const s = await run(codex, skip, { under: UNDER, installArgs: ['--trust'], beforeInstall: prepare });
    expectRedirected(s);
    const line = /sparehand: running locally: Codex's sandbox cuts the network, .*sparehand agent install codex --sandbox-access.*network_access = true/;
    expectRan(s, worker, { result: 1, status: 'Process exited with code 7', line, copy: false });
  });

  test('after agent install codex --sandbox-access: it runs on the worker, from inside the sandbox', async ({ skip }) => {
    const s = await run(codex, skip, { under: UNDER, installArgs: ['--trust', '--sandbox-access'], beforeInstall: prepare });
    expectRedirected(s);
    expectRan(s, worker, { result: 1, status: 'Process exited with code 7', line: /sparehand: ran on w0: /, copy: true });
    // Still in workspace-write: the widening is sparehand's folders and the network, nothing else.
    expect(readFileSync(join(s.box.home, '.codex', 'config.toml'), 'utf8')).toContain('sandbox_mode = "workspace-write"');
  });
});
