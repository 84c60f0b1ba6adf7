// Asks a coding tool's program its version, as `agent status` needs (short timeout).
import { execa } from 'execa';

/** The first line a program prints for its version arguments, or undefined (not answering within 5 s). */
export async function versionOf(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const r = await execa(file, [...args], { env, extendEnv: false, reject: false, timeout: 5000, input: '', stripFinalNewline: true });
  const text = `${r.stdout}\n${r.stderr}`.trim().split('\n')[0]?.trim();
  return r.exitCode === 0 && text ? text : undefined;
}
