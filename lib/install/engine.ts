// Plans one tool's install or uninstall in a workspace (nothing is written here): hook entries, own files,
// notes and trust entries, all from the registry's targets.
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AgentSpec, HookCommand, InstallBase, InstallTarget, JsonHookTarget, Scope } from '../agents/types.js';
import { hookCommand, sparehandInvocation } from './hook-command.js';
import { createdFrom, recordCreated } from './created.js';
import { installJson, missingFrom, ourIndices, parseSettings, uninstallJson } from './json-target.js';
import { hasNote, noteBlock, removeNote, upsertNote } from './note-block.js';
import { installOwnFile, uninstallOwnFile } from './own-file.js';
import { removeTomlField, setTomlString } from './toml-trust.js';
import type { Workspace } from './workspace.js';

export interface PlanOptions {
  base: InstallBase;
  scope: Scope;
  /** Write the trust entry for tools that need one (`--trust`). */
  trust?: boolean;
  /** node and script of the installed command (default: this process and this installation). */
  node?: string;
  script?: string;
}

/** Where a trust entry went (or would go) for a hook installed in `hooksRealPath`. */
export interface TrustEntry {
  file: string;
  hooksRealPath: string;
  group: number;
  handler: number;
  hash: string;
}

export interface Planned {
  agent: AgentSpec;
  /** Files this tool's hook lives in. */
  files: string[];
  notes: string[];
  trust?: TrustEntry;
  command: HookCommand;
}

/** Targets of a tool at one scope. */
export const targetsAt = (agent: AgentSpec, scope: Scope): InstallTarget[] => agent.install.filter((t) => t.scope === scope);
export const notesAt = (agent: AgentSpec, scope: Scope) => (agent.note ?? []).filter((n) => n.scope === scope);

/** Real path of a file that may not exist yet (its nearest existing folder resolved). */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const dir = dirname(path);
    return dir === path ? path : join(realPathOf(dir), basename(path));
  }
}

/** Where the trust entry of the hook now in `text` (a JSON target's file) lives, and its hash. */
export function trustEntryOf(agent: AgentSpec, target: JsonHookTarget, base: InstallBase, path: string, text: string): TrustEntry | undefined {
  if (!agent.trust) return undefined;
  const root = parseSettings(path, text, target.comments);
  const group = ourIndices(target, root)[0];
  if (group === undefined) return undefined;
  let list: unknown = root;
  for (const k of target.arrayPath) list = (list as Record<string, unknown>)[k];
  const entry = (list as Record<string, unknown>[])[group]!;
  return { file: agent.trust.file(base), hooksRealPath: realPathOf(path), group, handler: 0, hash: agent.trust.hash(entry, 0) };
}

/** Adds (or refreshes) this tool's hook, note and, with `trust`, its trust entry. */
export async function planInstall(ws: Workspace, agent: AgentSpec, opts: PlanOptions): Promise<Planned> {
  const command = hookCommand(agent.id, { ...(opts.node ? { node: opts.node } : {}), ...(opts.script ? { script: opts.script } : {}) });
  const planned: Planned = { agent, files: [], notes: [], command };
  for (const target of targetsAt(agent, opts.scope)) {
    const path = target.path(opts.base);
    const text = await ws.read(path);
    if (target.kind === 'json') {
      const missing = missingFrom(target, path, text);
      if (missing !== undefined) await recordCreated(ws, opts.base, path, target.arrayPath, missing);
      const next = installJson(target, path, text, command);
      ws.write(path, next);
      const trust = trustEntryOf(agent, target, opts.base, path, next);
      if (trust && agent.trust && opts.trust) {
        const toml = await ws.read(trust.file);
        ws.write(trust.file, setTomlString(trust.file, toml, agent.trust.table(trust.hooksRealPath, trust.group, trust.handler), agent.trust.field, trust.hash));
      }
      if (trust) planned.trust = trust;
    } else {
      ws.write(path, installOwnFile(target, path, text, command), { ...(target.mode === undefined ? {} : { mode: target.mode }), backup: false });
    }
    planned.files.push(path);
  }
  if (agent.connection !== 'none') {
    const block = noteBlock(sparehandInvocation(agent.sparehandName, command));
    for (const note of notesAt(agent, opts.scope)) {
      const path = note.path(opts.base);
      ws.write(path, upsertNote(await ws.read(path), block));
      planned.notes.push(path);
    }
  }
  return planned;
}

/**
 * Removes what install added: the hook entry (and its trust entry), sparehand's own files, and the note unless
 * `keepNotes` says another installed tool still reads that file.
 */
export async function planUninstall(ws: Workspace, agent: AgentSpec, opts: PlanOptions, keepNotes: ReadonlySet<string>): Promise<Planned> {
  const planned: Planned = { agent, files: [], notes: [], command: hookCommand(agent.id, opts) };
  for (const target of targetsAt(agent, opts.scope)) {
    const path = target.path(opts.base);
    const text = await ws.read(path);
    if (text === undefined) continue;
    if (target.kind === 'json') {
      const trust = trustEntryOf(agent, target, opts.base, path, text);
      // No record (installed by an older sparehand, or the state folder was cleared): prune nothing.
      const created = (await createdFrom(ws, opts.base, path, target.arrayPath)) ?? target.arrayPath.length + 1;
      const next = uninstallJson(target, path, text, created);
      if (next === text) continue;
      ws.write(path, next);
      // Forgotten once what install created is gone (another tool's entry may still hold the list).
      if (next === undefined || missingFrom(target, path, next) !== undefined) await recordCreated(ws, opts.base, path, target.arrayPath, undefined);
      if (trust && agent.trust) {
        const toml = await ws.read(trust.file);
        ws.write(trust.file, removeTomlField(trust.file, toml, agent.trust.table(trust.hooksRealPath, trust.group, trust.handler), agent.trust.field));
      }
    } else {
      const next = uninstallOwnFile(target, text);
      if (next === text) continue;
      ws.write(path, next, { backup: false });
    }
    planned.files.push(path);
  }
  for (const note of notesAt(agent, opts.scope)) {
    const path = note.path(opts.base);
    const text = await ws.read(path);
    if (keepNotes.has(path) || !hasNote(text)) continue;
    ws.write(path, removeNote(text));
    planned.notes.push(path);
  }
  return planned;
}

/** Whether a tool's hook is in place at a scope (some target holds sparehand's entry or file). */
export async function hookInstalled(ws: Workspace, agent: AgentSpec, base: InstallBase, scope: Scope): Promise<boolean> {
  for (const target of targetsAt(agent, scope)) {
    const path = target.path(base);
    const text = await ws.read(path);
    if (text === undefined) continue;
    if (target.kind === 'file' ? target.commandOf(text) !== undefined : safeOurs(target, path, text)) return true;
  }
  return false;
}

function safeOurs(target: JsonHookTarget, path: string, text: string): boolean {
  try {
    return ourIndices(target, parseSettings(path, text, target.comments)).length > 0;
  } catch {
    return false;
  }
}
