// Per coding tool, for `agent status` and `doctor`: whether its sandbox is on in the user's settings, and whether a
// run from inside it can reach the configured workers and write sparehand's folders (and, if not, why and the fix).
import type { AgentSpec, InstallBase } from '../agents/types.js';
import { loadRecord } from '../install/created.js';
import { workspace } from '../install/workspace.js';
import { accessAdvice } from './explain.js';
import { sandboxState } from './settings.js';
import type { SandboxWants } from './wants.js';

export interface SandboxReport {
  name: string;
  /** Seen in the real program, or read in its documentation only. */
  checked: 'real program' | 'documentation';
  on: boolean;
  /** Where that is said. */
  why: string;
  /** A run from inside it can reach the workers and write sparehand's folders (null: sparehand cannot tell). */
  offloads: boolean | null;
  blocks: string[];
  /** `--sandbox-access` widened it (and uninstall takes that back). */
  widened: boolean;
  /** What would let it offload. */
  fix?: string;
}

/** The report for `agent`, or undefined for a tool without a sandbox of its own. */
export async function sandboxReport(
  agent: AgentSpec,
  base: InstallBase,
  wants: SandboxWants,
  tilde?: (p: string) => string,
): Promise<SandboxReport | undefined> {
  const spec = agent.sandbox;
  if (!spec) return undefined;
  const state = sandboxState(spec, base, wants, tilde);
  const file = spec.settings?.file(base);
  const widened = file !== undefined && (await loadRecord(workspace(), base)).files[file]?.sandbox?.[agent.id] !== undefined;
  const offloads = state.on && state.unknown ? null : !state.on || state.blocks.length === 0;
  return {
    name: spec.name,
    checked: spec.checked,
    on: state.on,
    why: state.why,
    offloads,
    blocks: state.on ? state.blocks : [],
    widened,
    ...(offloads === false ? { fix: await accessAdvice(base, agent, wants) } : offloads === null ? { fix: state.unknown! } : {}),
  };
}

/** One line: `on (…); a run inside it offloads` / `on (…); a run inside it runs here: …; fix: …` / `off (…)`. */
export function reportLine(r: SandboxReport): string {
  if (!r.on) return `${r.name}: off (${r.why})`;
  if (r.offloads === null) return `${r.name}: on (${r.why}); sparehand cannot tell whether a run inside it offloads: ${r.fix}`;
  if (r.offloads)
    return `${r.name}: on (${r.why}); a run inside it reaches the workers and writes sparehand's folders${r.widened ? ' (widened by --sandbox-access)' : ''}`;
  return `${r.name}: on (${r.why}); a run inside it runs here: ${r.blocks.join('; ')}; to offload: ${r.fix}`;
}
