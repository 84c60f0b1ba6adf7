// Runs here start at a lower CPU and I/O priority, so that the editor, the browser and the agents themselves stay
// responsive while a heavy command runs (docs/config.md "local.nice"). Each wrapper execs the command: its pid,
// signals and exit status are the command's own.
import type { Config } from '../config.js';
import { which } from '../which.js';

export const DEFAULT_NICE = 10;

/** The argv put before the shell: `nice -n 10`, and `ionice -c3` (Linux) or `taskpolicy -b` (macOS) where present. */
export function gentlePrefix(config: Config, path: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  const nice = config.local?.nice ?? DEFAULT_NICE;
  if (nice === 0) return [];
  const prefix: string[] = [];
  const niceBin = which('nice', path ?? '/usr/bin:/bin');
  if (niceBin) prefix.push(niceBin, '-n', String(nice));
  // The idle I/O class: the command's reads and writes wait while anything else wants the disk.
  const ionice = platform === 'linux' ? which('ionice', path ?? '/usr/bin:/bin') : undefined;
  // -t: a system that refuses the class still runs the command (a container without the capability).
  if (ionice) prefix.push(ionice, '-c3', '-t');
  // macOS: background (throttled CPU, I/O and network) — the platform's own "be gentle".
  const taskpolicy = platform === 'darwin' ? which('taskpolicy', path ?? '/usr/bin:/bin') : undefined;
  if (taskpolicy) prefix.push(taskpolicy, '-b');
  return prefix;
}

/** What the prefix does, for doctor: `nice 10, idle I/O (ionice -c3)`. */
export function gentleWords(prefix: readonly string[]): string {
  if (prefix.length === 0) return 'at normal priority (local.nice is 0, or no nice here)';
  const words: string[] = [];
  const n = prefix.indexOf('-n');
  if (n >= 0) words.push(`nice ${prefix[n + 1]}`);
  if (prefix.includes('-c3')) words.push('idle I/O (ionice -c3)');
  if (prefix.includes('-b')) words.push('background (taskpolicy -b)');
  return `started at ${words.join(', ')}`;
}
