// What `agent install` says about a tool's sandbox: without --sandbox-access, what the sandbox blocks (nothing is
// widened); with it, what it widened (or why it cannot), said plainly where the widening is wider than one host.
import type { AgentSpec, InstallBase } from '../agents/types.js';
import { type Context, tilde } from '../context.js';
import type { Workspace } from '../install/workspace.js';
import { planSandboxAccess, planSandboxRevert } from './access.js';
import { configuredWants, wholeNetworkNote } from './explain.js';
import { canWiden, keyName, sandboxState } from './settings.js';

/** The lines install prints about `agent`'s sandbox (planning the widening into `ws` with `access`). */
export async function sandboxLines(
  ctx: Context,
  ws: Workspace,
  agent: AgentSpec,
  base: InstallBase,
  opts: { access: boolean; dryRun: boolean },
): Promise<string[]> {
  const spec = agent.sandbox;
  if (!spec) return [];
  const wants = configuredWants(ctx);
  const t = (p: string) => tilde(ctx, p);
  if (!opts.access) {
    // No worker yet: nothing to offload to, nothing to say (the flag's own note says to run it after `worker add`).
    if (wants.hosts.length + wants.unknown.length === 0) return [];
    const state = sandboxState(spec, base, wants, t);
    if (state.on && state.unknown) return [`  sandbox: ${spec.name} is on (${state.why}); sparehand cannot tell what it lets through: ${state.unknown}`];
    if (!state.on || state.blocks.length === 0) return [];
    return [
      `  sandbox: ${spec.name} is on (${state.why}): ${state.blocks.join('; ')}; so heavy commands run here from inside it`,
      `  then, to let them offload from inside it: sparehand agent install ${agent.id} --sandbox-access`,
    ];
  }
  if (!canWiden(spec.settings)) return [`  sandbox: sparehand cannot widen ${spec.name} itself: ${spec.manual ?? 'it has no setting sparehand knows of'}`];
  const plan = (await planSandboxAccess(ws, agent, base, wants))!;
  const lines =
    plan.changes.length === 0
      ? [`  sandbox: ${t(plan.file)} already lets a run inside ${spec.name} offload (unchanged)`]
      : [
          `  sandbox: ${opts.dryRun ? 'would widen' : 'widened'} ${spec.name} in ${t(plan.file)}: ${plan.changes.join(', ')}${spec.settings.takesEffect ? `; then ${spec.settings.takesEffect}` : ''}`,
        ];
  const whole = wholeNetworkNote(spec);
  if (whole && plan.changes.some((c) => c.startsWith(keyName(spec.settings!, spec.settings!.network!.key)))) lines.push(`  note: ${whole}`);
  if (wants.unknown.length > 0)
    lines.push(`  note: ${wants.unknown.join(', ')}: your ssh config reaches it through a proxy or a jump host; let that host through ${spec.name} by hand`);
  if (wants.hosts.length === 0 && wants.unknown.length === 0)
    lines.push(`  note: no worker is configured yet; after \`sparehand worker add\`, run this again to let it through ${spec.name}`);
  return lines;
}

/** Plans taking back the widening of `agent`'s sandbox; the file it is taken from, if any. */
export const revertSandbox = (ws: Workspace, agent: AgentSpec, base: InstallBase): Promise<string | undefined> => planSandboxRevert(ws, agent, base);
