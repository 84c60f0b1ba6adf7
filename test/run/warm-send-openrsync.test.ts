// Every warm-run test (warm-send.test.ts) again, with openrsync as this machine's rsync (a Mac's): what the skip
// leaves out, and what is sent in the run's own session, do not depend on which rsync sends the rest.
import '../helpers/openrsync-first.js';
import { shared } from './warm-send.test.js';
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

it("this machine's rsync is openrsync in this file, on the PATH the runs use", () => {
  expect(execFileSync('sh', ['-c', 'rsync --version 2>&1'], { env: shared.wh.env }).toString()).toMatch(/^openrsync: protocol version \d+/);
});
