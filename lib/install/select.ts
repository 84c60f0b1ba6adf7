// `TOOL|all` on the command line → the registry's specs; and which tools are used on this machine.
import { existsSync } from 'node:fs';
import { AGENT_IDS, AGENTS, allAgents, isAgentId } from '../agents/index.js';
import type { AgentSpec, InstallBase } from '../agents/types.js';
import { SparehandError } from '../errors.js';
import { which } from '../which.js';

export const TOOL_CHOICES = `${AGENT_IDS.join(', ')} or all`;

/** The tools a `TOOL|all` argument names. */
export function selectAgents(tool: string): AgentSpec[] {
  if (tool === 'all') return allAgents();
  if (isAgentId(tool)) return [AGENTS[tool]];
  throw new SparehandError('USAGE', `unknown tool "${tool}"`, { hint: `tools: ${TOOL_CHOICES}` });
}

/** The tool's program on PATH, if it has one and it is there. */
export function programPath(agent: AgentSpec, env: NodeJS.ProcessEnv): string | undefined {
  return agent.program?.binary ? which(agent.program.binary.name, env.PATH) : undefined;
}

/** Why a tool counts as used here (its program on PATH, or one of its folders), or undefined when it does not. */
export function usedHere(agent: AgentSpec, base: InstallBase): string | undefined {
  const program = programPath(agent, base.env);
  if (program) return program;
  return agent.program?.folders?.({ home: base.home, env: base.env }).find((f) => existsSync(f));
}

/** What `agent install all` looked for, for the line that says a tool was skipped. */
export function lookedFor(agent: AgentSpec, base: InstallBase, tilde: (p: string) => string): string {
  const where = [
    ...(agent.program?.binary ? [`no \`${agent.program?.binary.name}\` on PATH`] : []),
    ...(agent.program?.folders?.({ home: base.home, env: base.env }) ?? []).map((f) => `no ${tilde(f)}`),
  ];
  return where.join(', ');
}
