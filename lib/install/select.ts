// `TOOL|all` on the command line → the registry's specs.
import { AGENT_IDS, AGENTS, allAgents, isAgentId } from '../agents/index.js';
import type { AgentSpec } from '../agents/types.js';
import { SparehandError } from '../errors.js';

export const TOOL_CHOICES = `${AGENT_IDS.join(', ')} or all`;

/** The tools a `TOOL|all` argument names. */
export function selectAgents(tool: string): AgentSpec[] {
  if (tool === 'all') return allAgents();
  if (isAgentId(tool)) return [AGENTS[tool]];
  throw new SparehandError('USAGE', `unknown tool "${tool}"`, { hint: `tools: ${TOOL_CHOICES}` });
}
