// Finds executables on a PATH and asks their version, as `agent status` and `--trust` need (short timeouts).
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';

/** The first executable named `name` on `path` (a PATH value), or undefined. */
export function which(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

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
