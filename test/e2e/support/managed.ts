// An organization's managed settings for Claude Code, without touching this machine's /etc: sparehand's install and
// the CLI run in a mount namespace of their own (`unshare --mount`, root only) in which /etc is a copy of this
// machine's holding claude-code/managed-settings.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from './harness.js';

export type Enclose = (file: string, args: string[]) => [string, string[]];

/** What runs a command with `settings` as the managed settings; a string: why that cannot be done here. */
export function withManagedSettings(box: Sandbox, settings: unknown): Enclose | string {
  if (process.getuid?.() !== 0) return 'managed settings are put in place in a mount namespace of their own, which needs root';
  try {
    execFileSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' });
  } catch {
    return 'unshare --mount does not work here';
  }
  const etc = join(box.root, 'etc');
  // A copy of /etc (what cannot be copied, such as a socket, is left out).
  execFileSync('sh', ['-c', 'cp -a /etc "$0" 2>/dev/null; true', etc]);
  mkdirSync(join(etc, 'claude-code'), { recursive: true });
  writeFileSync(join(etc, 'claude-code', 'managed-settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return (file, args) => ['unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount --bind "$0" /etc && exec "$@"', etc, file, ...args]];
}
