// What only root can do here (mount, chattr, run a program as another user), for the tests that need it. As root
// they do it; as an ordinary user such a test is skipped, and its name says what it needs (`(needs root: mount)`),
// or it does the nearest thing an ordinary user can (a folder made read-only by its mode, which root writes through).
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { it } from 'vitest';

export const ROOT = process.getuid?.() === 0;

/** `it` as root; `it.skip` as an ordinary user (name the test with what it needs). */
export const itNeedsRoot = ROOT ? it : it.skip;

/**
 * Makes folder `dir` one nothing here may write in: immutable as root (root writes whatever the mode), read-only by
 * its mode as an ordinary user. What a write into it fails with, as the apply names it, and how to undo it.
 */
export function unwritableFolder(dir: string): { detail: string; undo: () => void } {
  if (ROOT) {
    execFileSync('chattr', ['+i', dir]);
    return { detail: 'not permitted', undo: () => execFileSync('chattr', ['-i', dir]) };
  }
  chmodSync(dir, 0o555);
  return { detail: 'permission denied', undo: () => chmodSync(dir, 0o755) };
}
