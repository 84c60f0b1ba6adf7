// The command a coding tool runs as its hook: absolute node + absolute script, because tools run hooks with a bare PATH.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentId, HookCommand } from '../agents/types.js';

/** The real path of this installation's bin/sparehand.js (from dist/install/ or lib/install/ alike). */
export function sparehandScript(): string {
  return realpathSync(fileURLToPath(new URL('../../bin/sparehand.js', import.meta.url)));
}

/** Quotes a path for sh: plain double quotes when nothing in it is special there, else single quotes. */
export function shellPath(path: string): string {
  if (!/["$`\\\n]/.test(path)) return `"${path}"`;
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

/** The hook command for one tool, from this process's node and this installation's script. */
export function hookCommand(agent: AgentId, opts: { node?: string; script?: string } = {}): HookCommand {
  const node = opts.node ?? process.execPath;
  const script = opts.script ?? sparehandScript();
  return { node, script, agent, shell: `${shellPath(node)} ${shellPath(script)} agent hook --for ${agent}` };
}

/**
 * The same command for tools that block a call when the hook cannot start: a missing sparehand (or node) exits 0
 * silently, and otherwise `exec` hands over, so the hook's own exit status (0, or 2 for a refusal) passes through.
 */
export function guardedShell(c: HookCommand): string {
  return `[ -f ${shellPath(c.script)} ] && [ -x ${shellPath(c.node)} ] && exec ${c.shell}; exit 0`;
}

/** How the rewritten/noted command names sparehand for a tool: bare on PATH, or node + script. */
export function sparehandInvocation(name: 'absolute' | 'bare', c: Pick<HookCommand, 'node' | 'script'>): string {
  return name === 'bare' ? 'sparehand' : `${shellPath(c.node)} ${shellPath(c.script)}`;
}
