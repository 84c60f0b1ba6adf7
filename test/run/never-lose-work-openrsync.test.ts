// Every attack on the sync back (never-lose-work.test.ts) again, with openrsync as this machine's rsync: the rsync
// of macOS 15.4 and later, which reads no .gitignore and protects no arguments (SPEC "Any client").
import '../helpers/openrsync-first.js';
import { w } from './never-lose-work.test.js';
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

it("this machine's rsync is openrsync in this file, on the PATH the runs use", () => {
  expect(execFileSync('sh', ['-c', 'rsync --version 2>&1'], { env: w.wh.env }).toString()).toMatch(/^openrsync: protocol version \d+/);
});
