// Asks the real program which hash it expects for the installed hook, so `--trust` writes what it will accept.
import type { AgentSpec, InstallBase } from '../agents/types.js';
import { type Context, tilde } from '../context.js';
import type { Planned, TrustEntry } from '../install/engine.js';
import { setTomlString } from '../install/toml-text.js';
import { applyChanges, readIfExists } from '../install/workspace.js';
import { programPath } from '../install/select.js';
import { rpcSession } from './json-rpc.js';

export type Confirmation =
  | { kind: 'confirmed'; program: string }
  | { kind: 'differs'; program: string; reported: string }
  | { kind: 'not-listed'; program: string }
  | { kind: 'no-program' }
  | { kind: 'failed'; program: string; why: string };

/** The program's own view of the hook's hash, compared with the one computed. */
export async function confirmTrust(agent: AgentSpec, base: InstallBase, entry: TrustEntry): Promise<Confirmation> {
  const confirm = agent.install.trust?.confirm;
  const program = programPath(agent, base.env);
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

/** Confirms a written trust entry with the real program (rewriting it with the hash the program reports). */
export async function confirmLines(ctx: Context, p: Planned, base: InstallBase): Promise<string[]> {
  const entry = p.trust!;
  const trust = p.agent.install.trust!;
  const c = await confirmTrust(p.agent, base, entry);
  const where = `trust entry in ${tilde(ctx, entry.file)}`;
  switch (c.kind) {
    case 'confirmed':
      return [`${where}: ${entry.hash} (confirmed by ${c.program})`];
    case 'differs': {
      const table = trust.table(entry.hooksRealPath, entry.group, entry.handler);
      const text = await readIfExists(entry.file);
      // The backup already holds the user's content from before install: keep it.
      await applyChanges([{ path: entry.file, before: text, after: setTomlString(entry.file, text, table, trust.field, c.reported) }]);
      return [`${where}: ${c.program} reports ${c.reported} (computed ${entry.hash}); the reported hash was written`];
    }
    case 'no-program':
      return [
        `${where}: ${entry.hash} was computed but not confirmed (the tool's program is not on PATH); check it with \`sparehand agent status\` once it is`,
      ];
    case 'not-listed':
      return [`${where}: ${entry.hash} was written, but ${c.program} does not list the hook; ${trust.howTo}`];
    case 'failed':
      return [`${where}: ${entry.hash} was written, but ${c.program} could not confirm it (${c.why})`];
  }
}
