// Whether this process runs inside a coding tool's sandbox, and whose: from the variables each tool gives the
// commands it runs (the registry's `sandbox` markers). The core never names a tool: it reads them from there.
import { type RegisteredSpec, allAgents } from '../agents/index.js';
import type { AgentSpec, EnvMarker, SandboxNetwork, SandboxSpec } from '../agents/types.js';

export interface SandboxHere {
  agent: AgentSpec;
  spec: SandboxSpec;
  /** `marker`: a variable only its sandboxed commands get; `agent`: the tool's command, not known to be sandboxed. */
  by: 'marker' | 'agent';
  network: SandboxNetwork;
}

const matches = (env: NodeJS.ProcessEnv, m: EnvMarker): boolean => (m.value === undefined ? Boolean(env[m.name]) : env[m.name] === m.value);

/** The sandbox this process is in (or the tool whose command it is), from its environment; undefined: none known. */
export function sandboxHere(env: NodeJS.ProcessEnv): SandboxHere | undefined {
  const tools = allAgents().filter((a): a is RegisteredSpec & { sandbox: SandboxSpec } => a.sandbox !== undefined);
  const inside = tools.flatMap((agent) => {
    const marker = agent.sandbox.insideEnv.find((m) => matches(env, m));
    return marker ? [{ agent, marker, own: agent.sandbox.agentEnv.some((m) => matches(env, m)) }] : [];
  });
  // Several tools run the same sandbox engine (and set the same marker): the one whose command this is, first.
  const best = inside.find((i) => i.own) ?? inside[0];
  if (best) return { agent: best.agent, spec: best.agent.sandbox, by: 'marker', network: best.marker.network };
  const own = tools.find((a) => a.sandbox.agentEnv.some((m) => matches(env, m)));
  return own ? { agent: own, spec: own.sandbox, by: 'agent', network: 'unknown' } : undefined;
}
