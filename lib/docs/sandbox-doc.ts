// docs/agents.md's account of each tool's sandbox, generated from the registry's `sandbox` data (and the same
// functions runs and `--sandbox-access` use): what it blocks, what sparehand does inside it, what the flag writes.
import type { AgentSpec, InstallBase, SandboxNetwork, SandboxSpec } from '../agents/types.js';
import { canWiden, keyName } from '../sandbox/settings.js';

const BASE: InstallBase = { home: '~', env: {}, project: '<project>' };
const FOLDERS = '`~/.cache/sparehand`, `~/.local/state/sparehand`';

const inside = (s: SandboxSpec): string =>
  s.insideEnv.length === 0
    ? 'no variable is documented; sparehand tells it by what fails'
    : s.insideEnv.map((m) => `\`${m.name}${m.value === undefined ? '' : `=${m.value}`}\``).join(' or ');

const DOES: Record<SandboxNetwork, string> = {
  cut: 'no worker can be reached: the run goes here at once (no connection tried), with one line naming the sandbox and the setting that would let it offload',
  proxy:
    "ssh goes through the proxy in the command's environment (sparehand's own tunnel, HTTP CONNECT or SOCKS5), without a shared connection where unix sockets are refused; a host the proxy refuses: the run goes here at once, with one line naming the sandbox and the setting",
  open: 'the worker is reached as outside it',
  unknown:
    "the worker is tried; a refusal by the sandbox (a socket refused, sparehand's folders read-only) sends the run here with one line naming the sandbox and the setting",
};

/** What `--sandbox-access` writes, in the tool's own words, for the doc. */
export function accessDoc(s: SandboxSpec): string {
  const st = s.settings;
  if (!canWiden(st)) return `nothing: sparehand cannot widen it itself (${s.manual ?? 'no setting is known'})`;
  const parts = [
    ...(st.writable ? [`\`${keyName(st, st.writable.key)}\` += ${FOLDERS} (those not already writable)`] : []),
    ...(st.network ? [`\`${keyName(st, st.network.key)} = true\` (the whole network: it has no per-host setting)`] : []),
    ...(st.hosts ? [`\`${keyName(st, st.hosts.key)}\` += each worker's \`${st.hosts.withPort ? 'host:port' : 'host'}\` (as \`ssh -G\` resolves it)`] : []),
  ];
  return `${parts.join('; ')}, in \`${st.file(BASE)}\`${st.takesEffect ? ` (then ${st.takesEffect})` : ''}`;
}

/** The **Sandbox** paragraph of a tool's section (none for a tool without a sandbox of its own). */
export function sandboxSection(a: AgentSpec): string[] {
  const s = a.sandbox;
  if (!s) return [];
  const st = s.settings;
  const net = s.insideEnv[0]?.network ?? 'unknown';
  return [
    `**Sandbox** (${s.checked === 'real program' ? 'seen in the real program by `npm run test:agents`' : 'from its documentation only; not driven here'}): ${s.name}, ${s.onByDefault ? 'on' : 'off'} by default${st?.switch ? ` (\`${keyName(st, st.switch.key)}\`; off: ${st.switch.off.map((v) => `\`${JSON.stringify(v)}\``).join(', ')})` : ''}.`,
    '',
    `- Inside it: ${inside(s)}; ${st?.alwaysWritable ? `sparehand's folders under HOME are not writable (only the project and ${st.alwaysWritable.map((p) => `\`${p}\``).join(', ')})` : canWiden(st) ? "sparehand's folders under HOME are not writable unless widened" : 'what it lets a command write and reach depends on how it is set up (below)'}.`,
    `- What sparehand does there: its own files go to the temp folder the sandbox leaves writable (or the project's \`.sparehand/\`, or are skipped); ${DOES[net]}.`,
    `- \`agent install ${a.id} --sandbox-access\` writes: ${accessDoc(s)}${canWiden(st) ? `; \`agent uninstall ${a.id}\` takes back exactly that` : ''}.`,
    ...(s.readOnlyInProject.length > 0 ? [`- Read-only inside the project even so: ${s.readOnlyInProject.map((p) => `\`${p}\``).join(', ')}.`] : []),
    '',
  ];
}

/** The summary table of the tools with a sandbox of their own. */
export function sandboxTable(agents: readonly AgentSpec[]): string[] {
  const rows = agents.flatMap((a) => {
    const s = a.sandbox;
    if (!s) return [];
    return [
      `| \`${a.id}\` | ${s.onByDefault ? 'yes' : 'no'} | ${inside(s)} | ${s.insideEnv[0]?.network ?? 'unknown'} | ${canWiden(s.settings) ? `\`${s.settings.file(BASE)}\`` : 'by hand'} | ${s.checked} |`,
    ];
  });
  return [
    '| id | sandbox on by default | seen from inside by | network inside | `--sandbox-access` writes | checked with |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ];
}
