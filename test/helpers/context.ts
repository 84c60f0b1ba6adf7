// A throwaway context for tests: its own HOME, env and captured streams, so tests run in parallel.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Context } from '../../lib/context.js';

export interface TestContext extends Context {
  out: () => string;
  err: () => string;
}

/**
 * A new folder under the system's temp folder, open to read for every user as a user's own folders are (mkdtemp
 * makes it 0700): the test workers run as another user than the tests when these run as root (sshd.ts workerUser),
 * and read what the tests put on their PATH or in their HOME.
 */
export function tempDir(prefix = 'sparehand-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/** A new folder the test workers may write in too (they run as another user when the tests run as root). */
export function sharedTempDir(prefix = 'sparehand-shared-'): string {
  const dir = tempDir(prefix);
  chmodSync(dir, 0o777);
  return dir;
}

/**
 * `dir` where every user can reach it: `dir` itself when every folder above it lets others through, else a copy
 * of it by the same name (hard links where the file system allows, so node_modules still resolves) under the temp folder, per user and per `dir`, made once. A clone
 * in a folder made by mkdtemp (0700, as CI's is) hides the repository's own node_modules from the test workers'
 * ordinary user.
 */
export function reachableByAll(dir: string): string {
  let up = dirname(dir);
  for (; up !== dirname(up); up = dirname(up)) if ((statSync(up).mode & 0o001) === 0) break;
  if (up === dirname(up)) return dir;
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 12);
  const copy = join(tmpdir(), `sparehand-reachable-${process.getuid?.() ?? 0}-${hash}`);
  if (existsSync(copy)) return join(copy, basename(dir));
  // Made aside and renamed into place: test files in parallel may make it at once, one of them wins.
  const work = mkdtempSync(`${copy}-making-`);
  try {
    try {
      execFileSync('cp', ['-al', dir, join(work, basename(dir))], { stdio: 'pipe' });
    } catch {
      rmSync(join(work, basename(dir)), { recursive: true, force: true });
      execFileSync('cp', ['-a', dir, join(work, basename(dir))], { stdio: 'pipe' });
    }
    chmodSync(work, 0o755);
    renameSync(work, copy);
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    if (!existsSync(copy)) throw e;
  }
  return join(copy, basename(dir));
}

/** An executable script `name` in `dir` (made if need be) that runs `body` with /bin/sh; its path. */
export function tool(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * A HOME whose sparehand config file holds `config` (a string as it is, anything else as JSON; none if undefined),
 * and an env with that HOME and this process's PATH.
 */
export function homeWith(config?: unknown): { home: string; file: string; env: { HOME: string; PATH: string } } {
  const home = tempDir('sparehand-home-');
  const file = join(home, '.config', 'sparehand', 'config.json');
  mkdirSync(join(file, '..'), { recursive: true });
  if (config !== undefined) writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return { home, file, env: { HOME: home, PATH: process.env.PATH! } };
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
