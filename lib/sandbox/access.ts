// `agent install TOOL --sandbox-access`: the smallest widening of the tool's sandbox that lets `sparehand run` reach
// the configured workers and write its own folders (only those hosts, only those folders), written through the install
// engine (merge, backup, atomic write, record of what it added), and `agent uninstall` taking back exactly that.
import type { AgentSpec, InstallBase, SandboxSettings } from '../agents/types.js';
import { type SandboxEdits, loadRecord, saveRecord } from '../install/created.js';
import { put, restore } from '../install/engine.js';
import type { Workspace } from '../install/workspace.js';
import type { SettingsText } from '../install/settings-text.js';
import { settingsText } from './edit-settings.js';
import { folderCovered, hostCovered, hostEntry, keyName } from './settings.js';
import type { SandboxWants } from './wants.js';

/** The owner of the widening in the install record (beside the tool's own hook in the same file). */
const owner = (agent: AgentSpec) => ({ id: `${agent.id}:sandbox` });
const dotted = (key: readonly string[]) => key.join('.');
const undotted = (key: string) => key.split('.');

export interface AccessPlan {
  file: string;
  /** What changes, as the tool's documentation writes it (`[sandbox_workspace_write] network_access = true`). */
  changes: string[];
}

const emptyEdits = (): SandboxEdits => ({ added: {}, set: {}, createdFrom: {} });

/** What a list should hold for sparehand: the entries wanted, those already covered by the user's left out. */
function listWants(
  s: SandboxSettings,
  wants: SandboxWants,
  base: InstallBase,
): { key: readonly string[]; want: string[]; covered: (entries: string[], v: string) => boolean }[] {
  const lists = [];
  if (s.writable)
    lists.push({ key: s.writable.key, want: wants.folders, covered: (e: string[], v: string) => folderCovered(v, [...e, ...(s.alwaysWritable ?? [])], base) });
  if (s.hosts) {
    const byEntry = new Map(wants.hosts.map((h) => [hostEntry(s, h), h]));
    lists.push({
      key: s.hosts.key,
      want: [...byEntry.keys()],
      covered: (e: string[], v: string) => hostCovered(byEntry.get(v)!.host, byEntry.get(v)!.port, e),
    });
  }
  return lists;
}

/** Edits `doc` so that it holds what sparehand needs (and no longer what it added before and needs no more). */
function widen(s: SandboxSettings, doc: SettingsText, edits: SandboxEdits, wants: SandboxWants, base: InstallBase): string[] {
  const changes: string[] = [];
  // What was missing before any edit of this install: a table made for one key is made for the others too.
  const missingBefore = new Map([s.writable?.key, s.hosts?.key, s.network?.key].flatMap((k) => (k ? [[dotted(k), doc.missingFrom(k)] as const] : [])));
  for (const { key, want, covered } of listWants(s, wants, base)) {
    const k = dotted(key);
    const ours = edits.added[k] ?? [];
    const now = () => (Array.isArray(doc.get(key)) ? (doc.get(key) as unknown[]).filter((v): v is string => typeof v === 'string') : []);
    const stale = ours.filter((v) => !want.includes(v) && now().includes(v));
    if (stale.length > 0) {
      doc.take(key, stale);
      changes.push(`${keyName(s, key)} -= ${stale.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    const others = now().filter((v) => !ours.includes(v));
    const add = want.filter((v) => !now().includes(v) && !covered(others, v));
    if (add.length > 0) {
      const missing = missingBefore.get(k);
      if (missing !== undefined && edits.createdFrom[k] === undefined) edits.createdFrom[k] = missing;
      doc.add(key, add);
      changes.push(`${keyName(s, key)} += ${add.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    const kept = [...ours.filter((v) => want.includes(v) && now().includes(v)), ...add];
    if (kept.length > 0) edits.added[k] = kept;
    else delete edits.added[k];
  }
  if (s.network) {
    const k = dotted(s.network.key);
    const needed = wants.hosts.length + wants.unknown.length > 0;
    const v = doc.get(s.network.key);
    if (needed && v !== true) {
      if (edits.set[k] === undefined) edits.set[k] = v === undefined ? { had: false } : { had: true, value: v };
      const missing = missingBefore.get(k);
      if (missing !== undefined && edits.createdFrom[k] === undefined) edits.createdFrom[k] = missing;
      doc.set(s.network.key, true);
      changes.push(`${keyName(s, s.network.key)} = true`);
    }
  }
  return changes;
}

/** Takes back what `edits` says install did, where it is still as install left it. */
function narrow(doc: SettingsText, edits: SandboxEdits): void {
  for (const [k, values] of Object.entries(edits.added)) {
    const key = undotted(k);
    doc.take(key, values);
    const from = edits.createdFrom[k];
    if (from !== undefined) doc.prune(key, from);
  }
  for (const [k, before] of Object.entries(edits.set)) {
    const key = undotted(k);
    if (doc.get(key) !== true) continue;
    if (before.had) doc.set(key, before.value);
    else {
      doc.remove(key);
      doc.prune(key, edits.createdFrom[k] ?? key.length + 1);
    }
  }
}

async function saveEdits(ws: Workspace, agent: AgentSpec, base: InstallBase, file: string, edits: SandboxEdits | undefined): Promise<void> {
  const record = await loadRecord(ws, base);
  const r = record.files[file];
  if (!r) return;
  const all = { ...r.sandbox };
  if (edits && (Object.keys(edits.added).length > 0 || Object.keys(edits.set).length > 0)) all[agent.id] = edits;
  else delete all[agent.id];
  if (Object.keys(all).length > 0) r.sandbox = all;
  else delete r.sandbox;
  await saveRecord(ws, base, record);
}

/** Plans the widening for `agent` at user level; undefined when the tool has no settings sparehand can write. */
export async function planSandboxAccess(ws: Workspace, agent: AgentSpec, base: InstallBase, wants: SandboxWants): Promise<AccessPlan | undefined> {
  const s = agent.sandbox?.settings;
  if (!s) return undefined;
  const file = s.file(base);
  const before = await ws.read(file);
  const doc = settingsText(s.format, file, before);
  const edits = (await loadRecord(ws, base)).files[file]?.sandbox?.[agent.id] ?? emptyEdits();
  const changes = widen(s, doc, edits, wants, base);
  if (changes.length === 0) return { file, changes };
  await put(ws, owner(agent), base, file, doc.text());
  await saveEdits(ws, agent, base, file, edits);
  return { file, changes };
}

/** Plans taking back what --sandbox-access wrote for `agent`; the file it changed, or undefined when it wrote nothing. */
export async function planSandboxRevert(ws: Workspace, agent: AgentSpec, base: InstallBase): Promise<string | undefined> {
  const s = agent.sandbox?.settings;
  if (!s) return undefined;
  const file = s.file(base);
  const record = await loadRecord(ws, base);
  const r = record.files[file];
  const edits = r?.sandbox?.[agent.id];
  if (!r || !edits) return undefined;
  const text = await ws.read(file);
  let next: string | undefined = text;
  if (text !== undefined) {
    const doc = settingsText(s.format, file, text);
    narrow(doc, edits);
    // A file install created goes once nothing is left in it; the user's own file stays, even empty.
    next = doc.empty() && r.created && (r.by ?? []).every((id) => id === owner(agent).id) ? undefined : doc.text();
  }
  await saveEdits(ws, agent, base, file, undefined);
  await restore(ws, owner(agent), base, file, next, next ?? text);
  return file;
}
