// `agent install` / `agent uninstall` for a list of tools: plans every edit in memory, then writes them (or prints
// the diff), then says what the user must still do. Tools whose files cannot be read are reported, not half-done.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'shell-quote';
import type { AgentSpec, InstallBase, Scope } from './agents/types.js';
import { type Context, tilde } from './context.js';
import { SparehandError, isSparehandError } from './errors.js';
import { resolvesTo, which } from './which.js';
import { type Planned, notesAt, planInstall, planUninstall, targetsAt, toolInstalled } from './install/engine.js';
import { lookedFor, usedHere } from './install/select.js';
import { self, sparehandInvocation } from './self.js';
import { removeCreatedDirs } from './install/created.js';
import { type InProcessChoice, folderOf, inProcessChoice } from './install/in-process.js';
import { withInstallLock } from './install/lock.js';
import { type Change, type Workspace, applyChanges, unifiedDiff, workspace } from './install/workspace.js';
import { sandboxLines, revertSandbox } from './sandbox/install-lines.js';

export interface ConnectOptions {
  project?: string;
  dryRun?: boolean;
  trust?: boolean;
  /** Widen each tool's sandbox so that a run inside it can offload (`--sandbox-access`). */
  sandboxAccess?: boolean;
  /** `all`: only the tools used on this machine (the others are skipped, with a line saying so). */
  onlyUsed?: boolean;
  /** With `trust`: confirms a written trust entry with the tool's own program; returns the lines to print. */
  confirm?: (ctx: Context, planned: Planned, base: InstallBase) => Promise<string[]>;
}

/** Where to install: the user's home, or `--project DIR`, which must be a folder that is there (a typo is not made). */
export function baseOf(ctx: Context, project: string | undefined): { base: InstallBase; scope: Scope } {
  const dir = project ? resolve(ctx.cwd, project) : undefined;
  if (dir !== undefined && !isDir(dir)) {
    throw new SparehandError('USAGE', `--project ${project}: ${existsSync(dir) ? 'not a folder' : 'no such folder'} (${dir})`, {
      hint: 'give the folder of an existing project (its root, where .git is); nothing was written',
    });
  }
  const base: InstallBase = { home: ctx.home, env: ctx.env, ...(dir ? { project: dir } : {}) };
  return { base, scope: project ? 'project' : 'user' };
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

function fail(failures: { agent: AgentSpec; error: SparehandError }[], verb: string): void {
  if (failures.length === 0) return;
  if (failures.length === 1) throw failures[0]!.error;
  throw new SparehandError(
    'INSTALL',
    `could not ${verb} ${failures.map((f) => f.agent.id).join(', ')}:\n${failures.map((f) => `  ${f.agent.id}: ${f.error.message}`).join('\n')}`,
  );
}

async function write(ctx: Context, ws: Workspace, opts: { dryRun: boolean; install: boolean; base: InstallBase }): Promise<Change[]> {
  const changes = ws.changes();
  if (opts.dryRun) {
    for (const c of changes) if (!c.internal) ctx.stdout.write(unifiedDiff(c));
    ctx.stdout.write(changes.length ? 'dry run: nothing was written\n' : 'dry run: nothing would change\n');
  } else {
    await applyChanges(changes, { sweep: ws.paths(), recordFirst: opts.install });
    // Also after an install that took one of a tool's two hooks out (the folders it had made, now empty).
    await removeCreatedDirs(opts.base);
  }
  return changes;
}

/** Where the bare `sparehand` must be for tools that call it by name; a line saying how, when it is not there. */
function bareNameAdvice(ctx: Context, script: string, who = "this tool's rewrites call"): string | undefined {
  const found = which('sparehand', ctx.env.PATH);
  if (found && resolvesTo(found, script)) return undefined;
  const where = found ? `the \`sparehand\` on your PATH (${found}) is another installation` : 'no `sparehand` is on your PATH';
  return `${where}; ${who} it by name: run \`npm link\` in ${resolve(script, '../..')}, or \`mkdir -p ~/.local/bin && ln -sf "${script}" ~/.local/bin/sparehand\` with ~/.local/bin on PATH`;
}

/** Installs the tools' hooks and notes, and prints (in registry order) what was done and what is left to do. */
export async function installAgents(ctx: Context, agents: readonly AgentSpec[], opts: ConnectOptions): Promise<void> {
  const { base } = baseOf(ctx, opts.project);
  await withInstallLock(base, () => installLocked(ctx, agents, opts));
}

/** installAgents, holding the install lock (lock.ts). */
async function installLocked(ctx: Context, agents: readonly AgentSpec[], opts: ConnectOptions): Promise<void> {
  const { base, scope } = baseOf(ctx, opts.project);
  if (opts.sandboxAccess && scope === 'project') {
    throw new SparehandError('USAGE', "--sandbox-access widens the tool's sandbox in your user settings, not a project's", {
      hint: 'run it without --project',
    });
  }
  const ws = workspace();
  const planned: Planned[] = [];
  const failures: { agent: AgentSpec; error: SparehandError }[] = [];
  const lines = new Map<string, string[]>(agents.map((a) => [a.id, []]));
  const out = (a: AgentSpec, s: string) => lines.get(a.id)!.push(s);
  const sandboxSaid = new Map<string, string[]>();
  const inside = new Map<string, InProcessChoice>();
  for (const agent of agents) {
    if (agent.connection === 'none') {
      out(agent, `${agent.id}: cannot be connected: ${agent.why}`);
      continue;
    }
    if (targetsAt(agent, scope).length === 0 && notesAt(agent, scope).length === 0) {
      out(agent, `${agent.id}: nothing to install at ${scope} level`);
      continue;
    }
    if (opts.onlyUsed && usedHere(agent, base) === undefined) {
      out(
        agent,
        `${agent.id}: skipped: not found here (${lookedFor(agent, base, (p) => tilde(ctx, p))}); to install it anyway: sparehand agent install ${agent.id}${opts.project ? ` --project ${opts.project}` : ''}`,
      );
      continue;
    }
    const undo = ws.checkpoint();
    try {
      const choice = scope === 'user' ? await inProcessChoice(agent, base) : undefined;
      if (choice) inside.set(agent.id, choice);
      planned.push(await planInstall(ws, agent, { base, scope, trust: Boolean(opts.trust), inProcess: choice?.use === true }));
      if (scope === 'user')
        sandboxSaid.set(agent.id, await sandboxLines(ctx, ws, agent, base, { access: Boolean(opts.sandboxAccess), dryRun: Boolean(opts.dryRun) }));
    } catch (e) {
      if (!isSparehandError(e)) throw e;
      undo();
      failures.push({ agent, error: e });
      out(agent, `${agent.id}: not installed: ${e.message}`);
    }
  }
  const changes = await write(ctx, ws, { dryRun: Boolean(opts.dryRun), install: true, base });
  const changed = new Set(changes.map((c) => c.path));
  const state = (...ps: string[]) => (ps.some((p) => changed.has(p)) ? (opts.dryRun ? 'would change' : 'written') : 'unchanged');
  for (const p of planned) {
    const a = p.agent;
    const choice = inside.get(a.id);
    const hook = a.install.inProcess;
    const files =
      choice?.use && hook
        ? [`${hook.name.replace(/^an? /, '')} in ${tilde(ctx, folderOf(p.files))}/ (${state(...p.files)})`]
        : p.files.map((f) => `hook in ${tilde(ctx, f)} (${state(f)})`);
    const parts = [...files, ...p.notes.map((f) => `note in ${tilde(ctx, f)} (${state(f)})`)];
    out(a, `${a.id}: ${parts.join('; ')}`);
    if (choice && hook) {
      out(
        a,
        `  ${choice.use ? `${hook.name} answers inside ${a.name}, in place of its settings hook` : `the settings hook answers, not ${hook.name}`}: ${choice.why}`,
      );
      const taken = p.replaced.filter((f) => changed.has(f));
      if (taken.length > 0)
        out(
          a,
          `  ${choice.use ? 'the settings hook' : `the ${hook.name.replace(/^an? /, '')}`} taken out of ${tilde(ctx, choice.use ? taken.join(', ') : `${folderOf(taken)}/`)}`,
        );
      if (choice.use) for (const t of hook.afterInstall ?? []) out(a, `  then: ${t}`);
    }
    if (a.install.trust && p.trust) {
      if (!opts.trust) out(a, `  then: trust the hook: ${a.install.trust.howTo}`);
      else if (!opts.dryRun && opts.confirm) for (const line of await opts.confirm(ctx, p, base)) out(a, `  ${line}`);
    }
    if (p.command.portable && p.files.length > 0) {
      out(
        a,
        "  note: the project's files call `sparehand` from PATH (no path of this machine): it works on every teammate's machine that has sparehand on PATH, and does nothing where there is none",
      );
    }
    if ((a.sparehandName === 'bare' || p.command.portable) && p.files.length > 0) {
      const advice = bareNameAdvice(ctx, self().script, a.sparehandName === 'bare' ? undefined : "this project's hook calls");
      if (advice) out(a, `  then: ${advice}`);
    }
    const invocation = sparehandInvocation(p.command.portable ? 'bare' : a.sparehandName, p.command);
    const unquoted = (parse(invocation) as unknown[]).map(String).join(' ');
    for (const t of a.install.afterInstall ?? []) out(a, `  then: ${t.replaceAll('{sparehand-unquoted}', unquoted).replaceAll('{sparehand}', invocation)}`);
  }
  for (const [id, l] of lines) for (const s of [...l, ...(sandboxSaid.get(id) ?? [])]) ctx.stdout.write(`${s}\n`);
  fail(failures, 'install');
}

/** Removes what install added for these tools; a note stays while another installed tool reads the same file. */
export async function uninstallAgents(ctx: Context, agents: readonly AgentSpec[], all: readonly AgentSpec[], opts: ConnectOptions): Promise<void> {
  const { base } = baseOf(ctx, opts.project);
  await withInstallLock(base, () => uninstallLocked(ctx, agents, all, opts));
}

/** uninstallAgents, holding the install lock (lock.ts). */
async function uninstallLocked(ctx: Context, agents: readonly AgentSpec[], all: readonly AgentSpec[], opts: ConnectOptions): Promise<void> {
  const { base, scope } = baseOf(ctx, opts.project);
  const ws = workspace();
  const ids = new Set(agents.map((a) => a.id));
  const keep = new Set<string>();
  for (const other of all) {
    if (ids.has(other.id) || !(await toolInstalled(ws, other, base, scope))) continue;
    for (const n of notesAt(other, scope)) keep.add(n.path(base));
  }
  const planned: Planned[] = [];
  const failures: { agent: AgentSpec; error: SparehandError }[] = [];
  const narrowed = new Map<string, string>();
  for (const agent of agents) {
    const undo = ws.checkpoint();
    try {
      const widened = scope === 'user' ? await revertSandbox(ws, agent, base) : undefined;
      if (widened) narrowed.set(agent.id, widened);
      planned.push(await planUninstall(ws, agent, { base, scope }, keep));
    } catch (e) {
      if (!isSparehandError(e)) throw e;
      undo();
      failures.push({ agent, error: e });
    }
  }
  await write(ctx, ws, { dryRun: Boolean(opts.dryRun), install: false, base });
  for (const p of planned) {
    const widened = narrowed.get(p.agent.id);
    const parts = [
      ...p.files.map((f) => `hook removed from ${tilde(ctx, f)}`),
      ...p.notes.map((f) => `note removed from ${tilde(ctx, f)}`),
      ...(widened ? [`sandbox widening removed from ${tilde(ctx, widened)}`] : []),
    ];
    if (parts.length > 0 || agents.length === 1) ctx.stdout.write(`${p.agent.id}: ${parts.length ? parts.join('; ') : 'nothing installed'}\n`);
  }
  fail(failures, 'uninstall');
}
