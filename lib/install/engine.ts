// Plans one tool's install or uninstall in a workspace (nothing is written here): hook entries, own files,
// notes and trust entries, all from the registry's targets.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AgentSpec, HookCommand, InstallBase, InstallTarget, JsonHookTarget, Scope } from '../agents/types.js';
import { missingDirs } from '../fs-atomic.js';
import { sparehandInvocation } from '../self.js';
import { hookCommand } from './hook-command.js';
import { type InstallRecord, addDirs, fileRecord, loadRecord, saveRecord } from './created.js';
import { installJson, installedCommands, missingFrom, ourHandler, ourIndices, onlySeed, parseSettings, uninstallJson } from './json-target.js';
import { hasNote, noteBlock, removeNote, upsertNote } from './note-block.js';
import { installOwnFile, uninstallOwnFile } from './own-file.js';
import { installToml, installedTomlCommands, removeTomlField, setTomlString, uninstallToml } from './toml-text.js';
import type { Workspace } from './workspace.js';

export interface PlanOptions {
  base: InstallBase;
  scope: Scope;
  /** Write the trust entry for tools that need one (`--trust`). */
  trust?: boolean;
  /** node and script of the installed command (default: this process and this installation). */
  node?: string;
  script?: string;
  /** Install the tool's hook inside the tool (install.inProcess) in place of its usual one at this level. */
  inProcess?: boolean;
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
  /** Files the other of the tool's two hooks was taken out of (the usual one where the in-process one went in, or back). */
  replaced: string[];
}

/** Targets of a tool at one scope: its hook files, and at user level those of its hook inside the tool (if any). */
export const targetsAt = (agent: AgentSpec, scope: Scope): InstallTarget[] => [...usualAt(agent, scope), ...inProcessAt(agent, scope)];
/** The hook files of a tool at one scope, without its hook inside the tool. */
export const usualAt = (agent: AgentSpec, scope: Scope): InstallTarget[] => agent.install.targets.filter((t) => t.scope === scope);
/** The files of a tool's hook inside the tool, at user level (its only level). */
export const inProcessAt = (agent: AgentSpec, scope: Scope): InstallTarget[] => (scope === 'user' ? [...(agent.install.inProcess?.targets ?? [])] : []);
export const notesAt = (agent: AgentSpec, scope: Scope) => (agent.install.notes ?? []).filter((n) => n.scope === scope);

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
  if (!agent.install.trust) return undefined;
  const root = parseSettings(path, text, target.comments);
  const group = ourIndices(target, root)[0];
  if (group === undefined) return undefined;
  let list: unknown = root;
  for (const k of target.arrayPath) list = (list as Record<string, unknown>)[k];
  const entry = (list as Record<string, unknown>[])[group]!;
  const handler = ourHandler(target, entry);
  return { file: agent.install.trust.file(base), hooksRealPath: realPathOf(path), group, handler, hash: agent.install.trust.hash(entry, handler) };
}

/** Who a change in the install record is by: a tool's id, or `<id>:sandbox` for what --sandbox-access wrote for it. */
export interface Owner {
  id: string;
}

/** Where install keeps the user's previous content: `<file>.bak`, unless a `.bak` of the user's own is there. */
function backupPath(record: InstallRecord, path: string): string {
  const bak = `${path}.bak`;
  const ours = Object.values(record.files).some((r) => r.backup === bak);
  return ours || !existsSync(bak) ? bak : `${path}.sparehand.bak`;
}

/**
 * Puts `next` in place of the file at `path` for `agent`, recording what that creates: the file and its folders, or
 * the backup of the user's file (not for sparehand's own files: a tool that runs every file in its hook folder would
 * run a stray copy).
 */
export async function put(
  ws: Workspace,
  agent: Owner,
  base: InstallBase,
  path: string,
  next: string,
  opts: { own?: boolean; mode?: number } = {},
): Promise<void> {
  const text = await ws.read(path);
  const record = await loadRecord(ws, base);
  const r = fileRecord(record, path);
  if (!(r.by ??= []).includes(agent.id)) r.by.push(agent.id);
  if (text === undefined) {
    r.created = true;
    addDirs(record, missingDirs(path));
  }
  const backup = text !== undefined && next !== text && !opts.own && !r.created ? (r.backup ??= backupPath(record, path)) : undefined;
  if (next !== text) ws.write(path, next, { ...(opts.mode === undefined ? {} : { mode: opts.mode }), ...(backup ? { backupTo: backup } : {}) });
  await saveRecord(ws, base, record);
}

/**
 * Puts the file back once `agent` is out of it: `next`, where undefined (nothing of the user's is left) removes the
 * file only where install created it, else leaves `keep` (the user's `{}` stays; sparehand's own file has no keep).
 * The backup and the record go once no tool of sparehand's is left in the file.
 */
export async function restore(ws: Workspace, agent: Owner, base: InstallBase, path: string, next: string | undefined, keep: string | undefined): Promise<void> {
  const record = await loadRecord(ws, base);
  const r = record.files[path];
  const final = next === undefined && !r?.created ? keep : next;
  if (final !== (await ws.read(path))) ws.write(path, final);
  if (r) {
    r.by = (r.by ?? []).filter((id) => id !== agent.id);
    if (r.by.length === 0) {
      if (r.backup) {
        await ws.read(r.backup);
        ws.write(r.backup, undefined);
      }
      delete record.files[path];
    }
  }
  await saveRecord(ws, base, record);
}

/** Adds (or refreshes) this tool's hook, note and, with `trust`, its trust entry; takes the other of its two hooks out. */
export async function planInstall(ws: Workspace, agent: AgentSpec, opts: PlanOptions): Promise<Planned> {
  // A project's files are shared by a team: no path of this machine in them.
  const command = hookCommand(agent.id, {
    ...(opts.node ? { node: opts.node } : {}),
    ...(opts.script ? { script: opts.script } : {}),
    portable: opts.scope === 'project',
  });
  const planned: Planned = { agent, files: [], notes: [], command, replaced: [] };
  const inside = opts.inProcess === true && inProcessAt(agent, opts.scope).length > 0;
  const [chosen, other] = inside ? [inProcessAt(agent, opts.scope), usualAt(agent, opts.scope)] : [usualAt(agent, opts.scope), inProcessAt(agent, opts.scope)];
  for (const target of other) if (await removeTarget(ws, agent, opts, target)) planned.replaced.push(target.path(opts.base));
  for (const target of chosen) await installTarget(ws, agent, opts, target, command, planned);
  if (agent.connection !== 'none') {
    const block = noteBlock(sparehandInvocation(command.portable ? 'bare' : agent.sparehandName, command));
    for (const note of notesAt(agent, opts.scope)) {
      const path = note.path(opts.base);
      await put(ws, agent, opts.base, path, upsertNote(await ws.read(path), block));
      planned.notes.push(path);
    }
  }
  return planned;
}

/** Puts the tool's hook in one target's file (and its trust entry, with `trust`). */
async function installTarget(ws: Workspace, agent: AgentSpec, opts: PlanOptions, target: InstallTarget, command: HookCommand, planned: Planned): Promise<void> {
  const path = target.path(opts.base);
  const text = await ws.read(path);
  if (target.kind === 'json') {
    const missing = missingFrom(target, path, text);
    const next = installJson(target, path, text, command);
    if (missing !== undefined) {
      const record = await loadRecord(ws, opts.base);
      (fileRecord(record, path).containers ??= {})[target.arrayPath.join('.')] = missing;
      await saveRecord(ws, opts.base, record);
    }
    await put(ws, agent, opts.base, path, next);
    const trust = trustEntryOf(agent, target, opts.base, path, next);
    if (trust && agent.install.trust && opts.trust) {
      const toml = await ws.read(trust.file);
      await put(
        ws,
        agent,
        opts.base,
        trust.file,
        setTomlString(trust.file, toml, agent.install.trust.table(trust.hooksRealPath, trust.group, trust.handler), agent.install.trust.field, trust.hash),
      );
    }
    if (trust) planned.trust = trust;
  } else if (target.kind === 'toml') {
    await put(ws, agent, opts.base, path, installToml(target, path, text, command));
  } else {
    await put(ws, agent, opts.base, path, installOwnFile(target, path, text, command), {
      own: true,
      ...(target.mode === undefined ? {} : { mode: target.mode }),
    });
  }
  planned.files.push(path);
}

/**
 * Removes what install added: the hook entry (and its trust entry), sparehand's own files, and the note unless
 * `keepNotes` says another installed tool still reads that file.
 */
export async function planUninstall(ws: Workspace, agent: AgentSpec, opts: PlanOptions, keepNotes: ReadonlySet<string>): Promise<Planned> {
  const planned: Planned = { agent, files: [], notes: [], command: hookCommand(agent.id, opts), replaced: [] };
  for (const target of targetsAt(agent, opts.scope)) if (await removeTarget(ws, agent, opts, target)) planned.files.push(target.path(opts.base));
  for (const note of notesAt(agent, opts.scope)) {
    const path = note.path(opts.base);
    const text = await ws.read(path);
    // Kept while another installed tool reads the file; gone already when another tool's uninstall took it out.
    if (keepNotes.has(path) || !hasNote(text)) {
      await restore(ws, agent, opts.base, path, text, text);
      continue;
    }
    await restore(ws, agent, opts.base, path, removeNote(text), '');
    planned.notes.push(path);
  }
  return planned;
}

/** Takes the tool's hook (and its trust entry) out of one target's file; whether there was one to take out. */
async function removeTarget(ws: Workspace, agent: AgentSpec, opts: PlanOptions, target: InstallTarget): Promise<boolean> {
  const path = target.path(opts.base);
  const text = await ws.read(path);
  if (text === undefined) {
    // Not there (an install killed before it was written): only the record may name it.
    await restore(ws, agent, opts.base, path, undefined, undefined);
    return false;
  }
  if (target.kind === 'json') {
    const trust = trustEntryOf(agent, target, opts.base, path, text);
    const record = await loadRecord(ws, opts.base);
    const key = target.arrayPath.join('.');
    // No record (installed by an older sparehand, or the state folder was cleared): prune nothing.
    const next = uninstallJson(target, path, text, record.files[path]?.containers?.[key] ?? target.arrayPath.length + 1);
    if (next === text) return false;
    // Forgotten once what install created is gone (another tool's entry may still hold the list).
    if (missingFrom(target, path, next) !== undefined) {
      delete record.files[path]?.containers?.[key];
      await saveRecord(ws, opts.base, record);
    }
    await restore(ws, agent, opts.base, path, onlySeed(target, path, next) ? undefined : next, next);
    if (trust && agent.install.trust) {
      const toml = await ws.read(trust.file);
      const rest = removeTomlField(trust.file, toml, agent.install.trust.table(trust.hooksRealPath, trust.group, trust.handler), agent.install.trust.field);
      if (rest !== toml) await restore(ws, agent, opts.base, trust.file, rest, '');
    }
  } else if (target.kind === 'toml') {
    const next = uninstallToml(target, path, text);
    if (next === text) return false;
    // A file that held only sparehand's table goes when install created it; the user's (even empty) stays.
    await restore(ws, agent, opts.base, path, next.trim() === '' ? undefined : next, next);
  } else {
    const next = uninstallOwnFile(target, text);
    if (next === text) return false;
    await restore(ws, agent, opts.base, path, undefined, undefined);
  }
  return true;
}

/**
 * Whether a tool is installed at a scope: its hook is in place or, for a tool that has only notes, install put its note
 * there (recorded in created.json: a note file can be shared by several tools).
 */
export async function toolInstalled(ws: Workspace, agent: AgentSpec, base: InstallBase, scope: Scope): Promise<boolean> {
  if (targetsAt(agent, scope).length > 0) return hookInstalled(ws, agent, base, scope);
  const record = await loadRecord(ws, base);
  for (const note of notesAt(agent, scope)) {
    const path = note.path(base);
    if (record.files[path]?.by?.includes(agent.id) && hasNote(await ws.read(path))) return true;
  }
  return false;
}

/** Whether a tool's hook is in place at a scope (some target holds sparehand's entry or file). */
async function hookInstalled(ws: Workspace, agent: AgentSpec, base: InstallBase, scope: Scope): Promise<boolean> {
  for (const target of targetsAt(agent, scope)) {
    const path = target.path(base);
    const text = await ws.read(path);
    if (text === undefined) continue;
    try {
      if (installedCommandsIn(target, path, text).length > 0) return true;
    } catch {
      // a file that does not parse holds no hook of ours
    }
  }
  return false;
}

/** The hook commands of sparehand's entries (or own file) in a target's file; throws when the file does not parse. */
export function installedCommandsIn(target: InstallTarget, path: string, text: string): string[] {
  if (target.kind === 'json') return installedCommands(target, path, text);
  if (target.kind === 'toml') return installedTomlCommands(target, path, text);
  const c = target.commandOf(text);
  return c === undefined ? [] : [c];
}
