// The command a coding tool runs as its hook: absolute node + absolute script, because tools run hooks with a bare PATH;
// in a project's files (shared by a team), `sparehand` from PATH, since no path of this machine is right on another.
import { hookShell, portableShell } from '../agents/shapes.js';
import type { HookCommand } from '../agents/types.js';
import { self } from '../self.js';

/**
 * The hook command for one tool, from this process's node and this installation's script; `portable` (a project's
 * files, which teammates share): `sparehand` looked up on PATH instead (shapes.ts portableShell).
 */
export function hookCommand(agent: string, opts: { node?: string; script?: string; portable?: boolean } = {}): HookCommand {
  if (opts.portable) return { node: '', script: 'sparehand', agent, shell: portableShell(agent), portable: true };
  const me = self();
  const node = opts.node ?? me.node;
  const script = opts.script ?? me.script;
  return { node, script, agent, shell: hookShell(node, script, agent) };
}
