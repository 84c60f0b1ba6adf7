// Finds the processes a test run started, by a marker variable in their environment (inherited by every
// descendant, including daemons that leave the process group), so none is left behind.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  cmdline: string;
}

/** Every live process whose environment carries `name=value`. */
export function processesWithEnv(name: string, value: string): ProcessInfo[] {
  const needle = Buffer.from(`${name}=${value}\0`);
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`);
      if (environ.indexOf(needle) < 0) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      found.push({ pid, cmdline });
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

/** Sends SIGKILL to one process, ignoring one that already ended. */
export function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Sends SIGKILL to a whole process group, ignoring one that already ended. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Waits up to `ms` for the marked processes to end by themselves; returns the ones still there. */
export async function waitForNone(name: string, value: string, ms: number): Promise<ProcessInfo[]> {
  const until = Date.now() + ms;
  let left = processesWithEnv(name, value);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    left = processesWithEnv(name, value);
  }
  return left;
}
