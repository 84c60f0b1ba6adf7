// A throwaway context for tests: its own HOME, env and captured streams, so tests run in parallel.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Context } from '../../lib/context.js';

export interface TestContext extends Context {
  out: () => string;
  err: () => string;
}

export function tempDir(prefix = 'sparehand-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testContext(opts: { home?: string; cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}): TestContext {
  const home = opts.home ?? tempDir('sparehand-home-');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return {
    home,
    cwd: opts.cwd ?? home,
    env: { PATH: process.env.PATH, HOME: home, ...opts.env },
    stdin: Readable.from([Buffer.from(opts.stdin ?? '')]),
    stdout,
    stderr,
    stderrIsTTY: false,
    stdinIsTTY: false,
    out: () => out,
    err: () => err,
  };
}

