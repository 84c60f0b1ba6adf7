// Asks a coding tool's program its version, as `agent status` needs (short timeout).
import { capture } from '../process.js';

/** The first line a program prints for its version arguments, or undefined (missing, failing, or not answering within 5 s). */
export async function versionOf(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const r = await capture(file, args, { env, timeoutMs: 5000 }).catch(() => undefined);
  if (r === undefined || r.code !== 0) return undefined;
  return `${r.stdout}\n${r.stderr}`.trim().split('\n')[0]?.trim() || undefined;
}
