// The command a coding tool runs as its hook: absolute node + absolute script, because tools run hooks with a bare PATH.
import { hookShell } from '../agents/shapes.js';
import type { AgentId, HookCommand } from '../agents/types.js';
import { self } from '../self.js';

/** The hook command for one tool, from this process's node and this installation's script. */
export function hookCommand(agent: AgentId, opts: { node?: string; script?: string } = {}): HookCommand {
  const me = self();
  const node = opts.node ?? me.node;
  const script = opts.script ?? me.script;
  return { node, script, agent, shell: hookShell(node, script, agent) };
}

