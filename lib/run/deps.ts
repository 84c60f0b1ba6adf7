// Dependencies are installed on the worker from the lock file, with the project's own package manager.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DepsPlan {
  lockfile: string;
  command: string;
  /** Hash of the lock file and the command; the worker reinstalls only when it changes. */
  hash: string;
}

/** Lock file → install command; the first match wins (a project with two lock files uses the first). */
export const INSTALLERS: ReadonlyArray<{ lockfile: string; command: string }> = [
  { lockfile: 'package-lock.json', command: 'npm ci --no-audit --no-fund' },
  { lockfile: 'npm-shrinkwrap.json', command: 'npm ci --no-audit --no-fund' },
  { lockfile: 'pnpm-lock.yaml', command: 'pnpm install --frozen-lockfile' },
  { lockfile: 'yarn.lock', command: 'yarn install --frozen-lockfile' },
  { lockfile: 'bun.lock', command: 'bun install --frozen-lockfile' },
  { lockfile: 'bun.lockb', command: 'bun install --frozen-lockfile' },
];

/** What to install for the project at `root`, or undefined when it has no lock file we know. */
export function depsPlan(root: string): DepsPlan | undefined {
  for (const { lockfile, command } of INSTALLERS) {
    let data: Buffer;
    try {
      data = readFileSync(join(root, lockfile));
    } catch {
      continue;
    }
    const hash = createHash('sha256').update(command).update('\0').update(data).digest('hex').slice(0, 32);
    return { lockfile, command, hash };
  }
  return undefined;
}
