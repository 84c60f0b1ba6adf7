// Asking programs here for their versions (for `doctor`, `worker check` and `run`'s one-time note).
import { capture } from '../process.js';

/** Each `version` command's first line of output here, or null when it failed (not installed). In parallel. */
export async function versionsHere(env: NodeJS.ProcessEnv, commands: readonly string[]): Promise<Map<string, string | null>> {
  const answers = await Promise.all(
    commands.map(async (c) => {
      try {
        const r = await capture('sh', ['-c', `${c} 2>&1 </dev/null`], { env });
        return [c, r.code === 0 ? (r.stdout.split('\n').find((l) => l.trim()) ?? null) : null] as const;
      } catch {
        return [c, null] as const;
      }
    }),
  );
  return new Map(answers);
}
