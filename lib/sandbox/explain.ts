// The words sparehand uses about a coding tool's sandbox: what it blocks, and the exact setting (written by
// `agent install TOOL --sandbox-access`) that would let a run offload from inside it. Shared by install, status,
// doctor and the one line a run prints when it runs here because of a sandbox.
import type { AgentSpec, SandboxSpec } from '../agents/types.js';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { loadConfigOrKept } from '../config.js';
import { isSparehandError } from '../errors.js';
import { workspace } from '../install/workspace.js';
import { planSandboxAccess } from './access.js';
import type { SandboxHere } from './here.js';
import { canWiden, keyName, sandboxState, type SandboxState } from './settings.js';
import { type SandboxWants, sandboxWants } from './wants.js';

type Env = Pick<Context, 'home' | 'env'>;

/** The configured workers' needs (none when the config cannot be read: that is said elsewhere). */
export function configuredWants(c: Env, config?: Pick<Config, 'workers'>): SandboxWants {
  if (config) return sandboxWants(c, config);
  // A broken file: the config the hooks and runs go by meanwhile (the problem is said elsewhere).
  return sandboxWants(
    c,
    loadConfigOrKept(c, () => {}),
  );
}

/** `sparehand agent install ID --sandbox-access (would …)`: what the flag would change now, in the tool's own words. */
export async function accessAdvice(c: Env, agent: AgentSpec, wants: SandboxWants): Promise<string> {
  const spec = agent.sandbox!;
  if (!canWiden(spec.settings)) return spec.manual ?? `${spec.name} has no setting sparehand knows of`;
  let changes: string[] = [];
  try {
    changes = (await planSandboxAccess(workspace(), agent, { home: c.home, env: c.env }, wants))?.changes ?? [];
  } catch (e) {
    if (!isSparehandError(e)) throw e;
    return `${e.message}; ${e.hint ?? ''}`.trim();
  }
  const after = spec.settings!.takesEffect ? `, then ${spec.settings.takesEffect}` : '';
  const what = changes.length > 0 ? ` (sets ${changes.join(', ')} in ${spec.settings!.file({ home: c.home, env: c.env })}${after})` : '';
  return `run \`sparehand agent install ${agent.id} --sandbox-access\`${what}`;
}

/** The state of `agent`'s sandbox for the configured workers; undefined for a tool without one. */
export function stateOf(c: Env, agent: AgentSpec, wants: SandboxWants, tilde?: (p: string) => string): SandboxState | undefined {
  if (!agent.sandbox) return undefined;
  return sandboxState(agent.sandbox, { home: c.home, env: c.env }, wants, tilde);
}

/** What a run inside `here` needs said, before "to let it offload, …": `<its name> cuts the network`. */
export function insideWhy(here: SandboxHere, what: string): string {
  return `${here.spec.name} ${what}`;
}

/** The one line's reason for running here from inside a sandbox, with the setting that would let it offload. */
export async function sandboxedReason(c: Env, here: SandboxHere, what: string, config?: Pick<Config, 'workers'>): Promise<string> {
  const advice = await accessAdvice(c, here.agent, configuredWants(c, config));
  return `${insideWhy(here, what)}; to let sparehand offload from it: ${advice}`;
}

/** `network_access = true opens …`: said plainly where a tool can only open its whole network. */
export function wholeNetworkNote(spec: SandboxSpec): string | undefined {
  const s = spec.settings;
  if (!s?.network || s.hosts) return undefined;
  return `${keyName(s, s.network.key)} = true opens the whole network to every command in ${spec.name}: it has no setting for one host`;
}
