// What Claude Code's mod (lib/agents/claude-mod.ts) runs for each Bash call, bundled by scripts/build.js into
// dist/claude-mod-core.mjs, which install writes beside the mod's own module: the hook's own steps
// (lib/hook/in-process.ts) for Claude Code's spec, on the payload Claude Code's settings hook is sent for the same
// call, so that the answer is the one the settings hook gives. A mod has no node: what those steps read of the machine
// (the config, the permission rules, the project's root, the workers' platforms) Claude Code lends, one hop per call
// of `$`, and lib/hook/read-ahead.ts serves the steps from what was read ahead.
import { answerInProcess } from '../hook/in-process.js';
import { type Lender, type Machine, reader, recall, remembered } from '../hook/read-ahead.js';
import { cacheDir } from '../paths.js';
import { join } from 'node:path';
import type { Self } from '../self.js';
import type { HookSpec } from '../agents/types.js';
import { claudeCode } from '../agents/claude-code.js';

/** What the mod knows of its session (read once) and of this call. */
export interface ModCall {
  /** The `tool.call` event: the Bash tool's input, flat, with `tool` and `tool_use_id`. */
  event: Record<string, unknown>;
  /** The session's working folder now. */
  cwd: string;
  session: {
    id: string;
    /** The folder the session started in (what the settings hook's CLAUDE_PROJECT_DIR names). */
    root: string;
    /** The variables the hook reads, as Claude Code's environment has them. */
    env: Record<string, string | undefined>;
    machine: Machine;
  };
  /** The sparehand the rewrites name (the installation that wrote the mod). */
  self: Self;
  lender: Lender;
}

/** What the mod does with the call: run `input` in its place, refuse it, or leave it. */
export interface ModAnswer {
  input?: Record<string, unknown>;
  deny?: string;
}

/** The payload Claude Code's settings hook is sent for this call (PreToolUse; the mod is given no permission mode). */
export function settingsPayload(event: Record<string, unknown>, call: Pick<ModCall, 'cwd' | 'session'>): Record<string, unknown> {
  const { tool, tool_use_id, ...input } = event;
  return {
    session_id: call.session.id,
    cwd: call.cwd,
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    ...(tool_use_id === undefined ? {} : { tool_use_id }),
  };
}

/** The settings hook's answer (its stdout, exit status and stderr) as what the mod does with the call. */
export function fromSettingsAnswer(event: Record<string, unknown>, answer: { stdout: string; stderr: string; exitCode: number }): ModAnswer {
  if (answer.exitCode === 2) return { deny: answer.stderr.trim() };
  if (!answer.stdout.trim()) return {};
  const out = (JSON.parse(answer.stdout) as { hookSpecificOutput?: Record<string, unknown> }).hookSpecificOutput ?? {};
  if (out.permissionDecision === 'deny') return { deny: String(out.permissionDecisionReason ?? '') };
  const updated = out.updatedInput;
  if (typeof updated !== 'object' || updated === null) return {};
  return { input: { ...event, ...updated } };
}

/** The answer for one Bash call; a failure leaves the call alone, and a line goes to the hook's log (in-process.ts). */
export async function answerCall(call: ModCall): Promise<ModAnswer> {
  const raw = settingsPayload(call.event, call);
  // As the settings hook's environment has it: Claude Code's, and the project folder Claude Code adds for hooks. The
  // command lines of Claude Code's processes are not read: the mod asks Claude Code itself whether the original
  // command is allowed (claude-mod.ts, tool.check), and each read is a hop.
  const env: NodeJS.ProcessEnv = {
    ...call.session.env,
    CLAUDE_PROJECT_DIR: call.session.env.CLAUDE_PROJECT_DIR || call.session.root,
    SPAREHAND_NO_PROC: '1',
  };
  const ctx = { home: env.HOME || '/', cwd: call.cwd, env, self: call.self };
  const answer = await answerInProcess(claudeCode as unknown as HookSpec, raw, ctx, reader(call.lender, call.session.machine, ctx).run);
  // What was read, kept for the next session's first call (its answer does not wait for the write).
  const keep = remembered();
  if (keep) void call.lender.write(readsFile(ctx), `${JSON.stringify(keep)}\n`).catch(() => undefined);
  return fromSettingsAnswer(call.event, answer);
}

/** Where the mod keeps what its calls read, between sessions. */
const readsFile = (c: { home: string; env: NodeJS.ProcessEnv }): string => join(cacheDir(c), 'claude-mod-reads.json');

/** At a session's start: what an earlier session's calls read, to read it ahead (nothing kept: nothing to do). */
export async function startSession(lender: Lender, env: Record<string, string | undefined>): Promise<void> {
  try {
    recall(JSON.parse(await lender.read(readsFile({ home: env.HOME || '/', env }))));
  } catch {
    // none kept yet, or not readable: the first calls find out
  }
}
