// Asks the real program which hash it expects for the installed hook, so `--trust` writes what it will accept.
import type { AgentSpec, InstallBase } from '../agents/types.js';
import type { TrustEntry } from './engine.js';
import { which } from './binary.js';
import { rpcSession } from './json-rpc.js';

export type Confirmation =
  | { kind: 'confirmed'; program: string }
  | { kind: 'differs'; program: string; reported: string }
  | { kind: 'not-listed'; program: string }
  | { kind: 'no-program' }
  | { kind: 'failed'; program: string; why: string };

/** The program's own view of the hook's hash, compared with the one computed. */
export async function confirmTrust(agent: AgentSpec, base: InstallBase, entry: TrustEntry): Promise<Confirmation> {
  const confirm = agent.trust?.confirm;
  const program = agent.binary ? which(agent.binary.name, base.env.PATH) : undefined;
  if (!confirm || !program) return { kind: 'no-program' };
  const cwd = base.project ?? base.home;
  const rpc = rpcSession(program, confirm.args, { env: base.env, cwd, timeoutMs: 15_000 });
  try {
    const reported = await confirm.currentHash(rpc, { cwd, hooksRealPath: entry.hooksRealPath, group: entry.group, handler: entry.handler });
    if (reported === undefined) return { kind: 'not-listed', program };
    return reported === entry.hash ? { kind: 'confirmed', program } : { kind: 'differs', program, reported };
  } catch (e) {
    return { kind: 'failed', program, why: (e as Error).message };
  } finally {
    rpc.close();
  }
}
