// `agent status`: per tool, what is installed where, the tool's binary and version, what the connection was
// checked against, and whether a hash-trusting tool trusts the hook. Reads the registry only.
import type { AgentSpec, Confirmed, InstallBase, Scope } from '../agents/types.js';
import { versionOf } from '../install/version-of.js';
import { inProcessAt, installedCommandsIn, notesAt, targetsAt, toolInstalled, trustEntryOf, usualAt } from '../install/engine.js';
import { folderOf, inProcessChoice } from '../install/in-process.js';
import { hasNote } from '../install/note-block.js';
import { confirmTrust } from './trust-confirm.js';
import { valueAt } from '../install/settings-text.js';
import { parseToml } from '../install/toml-text.js';
import { programPath } from '../install/select.js';
import { readIfExists, workspace } from '../install/workspace.js';
import { type SandboxReport, sandboxReport } from '../sandbox/report.js';
import type { SandboxWants } from '../sandbox/wants.js';

export type TrustState = 'trusted' | 'untrusted' | 'changed' | 'unknown';

export interface ScopeStatus {
  scope: Scope;
  /** Where the hook lives at this scope (the first target). */
  files: string[];
  installed: boolean;
  notes: { file: string; present: boolean }[];
  trust?: TrustState;
}

export interface AgentStatus {
  id: string;
  name: string;
  connection: string;
  user: ScopeStatus;
  project: ScopeStatus;
  binary: { name: string; path: string | null; version: string | null } | null;
  documented: string | null;
  /** Latest day a source was read. */
  sourcesRead: string | null;
  confirmed: Confirmed[];
  /** The tool's own sandbox (with `wants`): on or off, and whether a run inside it offloads. */
  sandbox?: SandboxReport;
  /**
   * For a tool with a hook inside it (install.inProcess): which of its two hooks answers at user level (`inside`,
   * `settings`, or `none` when neither is there or the one there will not load), where the inside one is, and why.
   */
  answers?: { by: 'inside' | 'settings' | 'none'; why: string; folder: string; name: string };
}

/** Whether the tool trusts the hook installed at this scope (by the hash it would compute). */
export async function trustState(agent: AgentSpec, base: InstallBase, scope: Scope): Promise<TrustState | undefined> {
  if (!agent.install.trust) return undefined;
  for (const target of targetsAt(agent, scope)) {
    if (target.kind !== 'json') continue;
    const path = target.path(base);
    const text = await readIfExists(path);
    if (text === undefined) continue;
    try {
      const entry = trustEntryOf(agent, target, base, path, text);
      if (!entry) continue;
      const toml = await readIfExists(entry.file);
      const stored =
        toml === undefined
          ? undefined
          : valueAt(parseToml(entry.file, toml), [...agent.install.trust.table(entry.hooksRealPath, entry.group, entry.handler), agent.install.trust.field]);
      if (stored === undefined) return 'untrusted';
      if (stored === entry.hash) return 'trusted';
      // Another hash: --trust may have written the one the program itself reported; ask it when it is there.
      const c = await confirmTrust(agent, base, entry);
      return c.kind === 'differs' && c.reported === stored ? 'trusted' : 'changed';
    } catch {
      return 'unknown';
    }
  }
  return undefined;
}

async function scopeStatus(agent: AgentSpec, base: InstallBase, scope: Scope): Promise<ScopeStatus> {
  const ws = workspace();
  const notes = await Promise.all(notesAt(agent, scope).map(async (n) => ({ file: n.path(base), present: hasNote(await readIfExists(n.path(base))) })));
  const trust = await trustState(agent, base, scope);
  return {
    scope,
    files: usualAt(agent, scope).map((t) => t.path(base)),
    installed: await toolInstalled(ws, agent, base, scope),
    notes,
    ...(trust ? { trust } : {}),
  };
}

/** The status of one tool (user level, and project level for `project`). */
export async function agentStatus(
  agent: AgentSpec,
  base: InstallBase & { project: string },
  wants?: SandboxWants,
  tilde?: (p: string) => string,
): Promise<AgentStatus> {
  const path = programPath(agent, base.env) ?? null;
  const version = agent.program?.binary && path ? ((await versionOf(path, agent.program?.binary.versionArgs, base.env)) ?? null) : null;
  const reads = agent.facts.sources.map((s) => s.read).sort();
  return {
    id: agent.id,
    name: agent.name,
    connection: agent.connection,
    user: await scopeStatus(agent, base, 'user'),
    project: await scopeStatus(agent, base, 'project'),
    binary: agent.program?.binary ? { name: agent.program?.binary.name, path, version } : null,
    documented: agent.facts.documented ?? null,
    sourcesRead: reads.at(-1) ?? null,
    confirmed: [...agent.facts.confirmed],
    ...(wants && agent.sandbox ? { sandbox: await sandboxReport(agent, base, wants, tilde) } : {}),
    ...(agent.install.inProcess ? { answers: await whichAnswers(agent, base) } : {}),
  };
}

/** Whether any of these targets holds sparehand's hook. */
async function anyInstalled(targets: ReturnType<typeof targetsAt>, base: InstallBase): Promise<boolean> {
  for (const t of targets) {
    const text = await readIfExists(t.path(base));
    try {
      if (text !== undefined && installedCommandsIn(t, t.path(base), text).length > 0) return true;
    } catch {
      // a file that does not parse holds no hook of ours
    }
  }
  return false;
}

/** Which of the tool's two hooks answers at user level, and why. */
async function whichAnswers(agent: AgentSpec, base: InstallBase): Promise<NonNullable<AgentStatus['answers']>> {
  const hook = agent.install.inProcess!;
  const choice = (await inProcessChoice(agent, base))!;
  const inside = inProcessAt(agent, 'user');
  const folder = folderOf(inside.map((t) => t.path(base)));
  const name = hook.name;
  if (await anyInstalled(inside, base)) {
    if (!choice.use && choice.known)
      return {
        by: 'none',
        folder,
        name,
        why: `${hook.name} is installed, but ${choice.why}: \`sparehand agent install ${agent.id}\` puts the settings hook in its place`,
      };
    return { by: 'inside', folder, name, why: choice.why };
  }
  if (await anyInstalled(usualAt(agent, 'user'), base)) {
    return { by: 'settings', folder, name, why: choice.use ? `${choice.why}: \`sparehand agent install ${agent.id}\` puts it in place` : choice.why };
  }
  return { by: 'none', folder, name, why: `not installed; install would put in ${choice.use ? hook.name : 'the settings hook'}: ${choice.why}` };
}
