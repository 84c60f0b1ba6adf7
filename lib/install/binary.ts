// Finds executables on a PATH and asks their version, as `agent status` and `--trust` need (short timeouts).
import { realpathSync } from 'node:fs';
import { execa } from 'execa';

export { which } from '../which.js';

/** Whether `file` is (a link to) `target`. */
export function resolvesTo(file: string, target: string): boolean {
  try {
    return realpathSync(file) === realpathSync(target);
  } catch {
    return false;
  }
}

/** The first line a program prints for its version arguments, or undefined (not answering within 5 s). */
export async function versionOf(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const r = await execa(file, [...args], { env, extendEnv: false, reject: false, timeout: 5000, input: '', stripFinalNewline: true });
  const text = `${r.stdout}\n${r.stderr}`.trim().split('\n')[0]?.trim();
  return r.exitCode === 0 && text ? text : undefined;
}
