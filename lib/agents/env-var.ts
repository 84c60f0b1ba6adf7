// The environment variable of one tool's off switch, apart from the registry: the in-process hooks (a tool's own
// plugin or mod) load only their own tool's spec, not every tool's.

/** Environment variable that turns one tool's hook off (`off`) or switches a redirect tool to rewriting. */
export const agentEnvVar = (id: string): string => `SPAREHAND_AGENT_${id.toUpperCase().replace(/-/g, '_')}`;
