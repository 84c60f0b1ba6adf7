// Pieces several tools share: Claude-style payloads, hook entries and answers, the guarded hook command.
import * as p from './payload-shape.js';
import { join } from 'node:path';
import type { HookAnswer, HookCommand, InstallBase, JsonHookTarget, Scope, TomlHookTarget, WireAnswer } from './types.js';

/** Builds a value on first use: payload schemas are made only for the tool that is calling. */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Tool input objects are kept whole on rewrite, so they are loose: unknown fields pass through. */
export const looseInput = once(() => p.looseObject({ command: p.string() }));

/** Claude Code's PreToolUse payload, which the tools that copied its hooks send too; each adds or tightens its own fields. */
export const preToolUsePayload = <F extends Record<string, p.Shape<unknown>>>(fields: F) =>
  p.looseObject({
    hook_event_name: p.literal('PreToolUse'),
    tool_name: p.string(),
    tool_input: looseInput(),
    session_id: p.optional(p.string()),
    cwd: p.optional(p.string()),
    ...fields,
  });

export const json = (value: unknown): WireAnswer => ({ stdout: `${JSON.stringify(value)}\n`, stderr: '', exitCode: 0 });
/** Exit 2 with the reason on stderr: the refusal form of tools whose JSON answers cannot refuse. */
export const exit2 = (reason: string): WireAnswer => ({ stdout: '', stderr: `${reason}\n`, exitCode: 2 });

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rewritten tool input: every field the tool sent, the new command, and the raised timeout if any. */
export function rewrittenInput(
  input: Record<string, unknown>,
  answer: Extract<HookAnswer, { kind: 'rewrite' }>,
  timeoutField?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input, command: answer.command };
  if (timeoutField && answer.timeoutMs !== undefined) out[timeoutField] = answer.timeoutMs;
  return out;
}

/** Claude Code's PreToolUse answer form (also Codex, Factory droid, Devin, VS Code's Local harness). */
export function claudeStyleAnswer(
  eventName: string,
  answer: Exclude<HookAnswer, { kind: 'leave' }>,
  updatedInput: () => Record<string, unknown>,
  opts: { approveField?: boolean } = {},
): WireAnswer {
  if (answer.kind === 'refuse') {
    return json({
      hookSpecificOutput: { hookEventName: eventName, permissionDecision: 'deny', permissionDecisionReason: answer.reason },
    });
  }
  const out: Record<string, unknown> = { hookEventName: eventName };
  if (answer.approve && opts.approveField !== false) out.permissionDecision = 'allow';
  out.updatedInput = updatedInput();
  return json({ hookSpecificOutput: out });
}

/** `"<node>" "<script>" agent hook --for <id>`: absolute paths, since tools run hooks with a bare PATH. */
export const hookShell = (node: string, script: string, agent: string): string => `"${node}" "${script}" agent hook --for ${agent}`;

/**
 * A project's hook command: `sparehand` from PATH, exit 0 silently where there is none (a teammate without it), so
 * that a committed file names no path of one machine.
 */
export const portableShell = (agent: string): string => `sh -c 'command -v sparehand >/dev/null 2>&1 || exit 0; exec sparehand agent hook --for ${agent}'`;

/**
 * For tools that block the call when the hook fails to start (Copilot CLI: any non-zero exit; Gemini CLI:
 * exit 127 with text): when sparehand is gone the command exits 0 silently instead (a portable one does already).
 */
export const guardedShell = (hook: HookCommand): string =>
  hook.portable ? hook.shell : `test -f "${hook.script}" && test -x "${hook.node}" || exit 0; exec ${hook.shell}`;

/**
 * For tools that block a call they get no valid answer for (Antigravity CLI): the command prints `fallback` (the
 * tool's "leave alone" answer) when sparehand is gone, fails, or prints nothing, so the tool always gets an answer.
 */
export function answeringShell(hook: HookCommand, fallback: string): string {
  const line = fallback.trimEnd();
  if (line.includes("'") || line.includes('\n')) throw new Error(`not a one-line, single-quote-free answer: ${fallback}`);
  return `out=$(${hook.shell}) && [ -n "$out" ] && printf '%s\\n' "$out" || printf '%s\\n' '${line}'`;
}

/** Recognises sparehand's hook command for one tool id in any install (any path, guarded or not). */
export const isSparehandCommand = (command: unknown, agent: string): boolean =>
  typeof command === 'string' && /sparehand[^\s"']*["']?\s+agent hook\b/.test(command) && new RegExp(`--for[ =]${agent}(?![\\w-])`).test(command);

/** Claude-style group `{matcher, hooks:[{type:"command", command, timeout}]}` inside `arrayPath`. */
export function claudeStyleTarget(o: {
  agent: string;
  scope: Scope;
  path: (base: InstallBase) => string;
  arrayPath: readonly string[];
  matcher: string;
  timeout: number;
  comments?: boolean;
  /** What a new file starts as (`{ version: 1 }`). */
  seed?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  guarded?: boolean;
  /** The installed command, where it is more than the bare hook command (default: `hook.shell`, or guarded). */
  command?: (hook: HookCommand) => string;
}): JsonHookTarget {
  const isOurHandler = (h: unknown): boolean => isObject(h) && isSparehandCommand(h.command, o.agent);
  const commandOf = (entry: unknown): string | undefined => {
    if (!isObject(entry) || !Array.isArray(entry.hooks)) return undefined;
    const h = entry.hooks.find(isOurHandler);
    return isObject(h) && typeof h.command === 'string' ? h.command : undefined;
  };
  return {
    kind: 'json',
    scope: o.scope,
    path: o.path,
    comments: o.comments ?? false,
    ...(o.seed ? { seed: o.seed } : {}),
    arrayPath: o.arrayPath,
    entry: (hook) => ({
      matcher: o.matcher,
      hooks: [{ ...o.extra, type: 'command', command: o.command?.(hook) ?? (o.guarded ? guardedShell(hook) : hook.shell), timeout: o.timeout }],
    }),
    isOurs: (entry) => commandOf(entry) !== undefined,
    commandOf,
    handlers: { key: 'hooks', isOurs: isOurHandler },
  };
}

/**
 * A flat hook entry inside `arrayPath` whose command sits in one field, read by `commandAt` (Copilot's `bash`,
 * Cursor's `command`, Kiro's `action.command`).
 */
export function flatTarget(o: {
  agent: string;
  scope: Scope;
  path: (base: InstallBase) => string;
  seed?: Record<string, unknown>;
  arrayPath: readonly string[];
  entry: (hook: HookCommand) => Record<string, unknown>;
  commandAt: (entry: Record<string, unknown>) => unknown;
}): JsonHookTarget {
  const commandOf = (entry: unknown): string | undefined => {
    const c = isObject(entry) ? o.commandAt(entry) : undefined;
    return typeof c === 'string' ? c : undefined;
  };
  return {
    kind: 'json',
    scope: o.scope,
    path: o.path,
    comments: false,
    ...(o.seed ? { seed: o.seed } : {}),
    arrayPath: o.arrayPath,
    entry: o.entry,
    isOurs: (entry) => isSparehandCommand(commandOf(entry), o.agent),
    commandOf,
  };
}

/** Reads a string field or nothing. */
export const strField = (o: Record<string, unknown>, key: string): string | undefined => (typeof o[key] === 'string' ? (o[key] as string) : undefined);
export const numField = (o: Record<string, unknown>, key: string): number | undefined =>
  typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined;

/** A path under HOME (user scope) or under the `--project` folder. */
export const inHome =
  (...parts: string[]) =>
  (b: InstallBase): string =>
    join(b.home, ...parts);
export const inProject =
  (...parts: string[]) =>
  (b: InstallBase): string =>
    join(b.project ?? b.home, ...parts);
/** `$XDG_CONFIG_HOME/...`, default `~/.config/...`. */
export const inConfigHome =
  (...parts: string[]) =>
  (b: InstallBase): string =>
    join(b.env.XDG_CONFIG_HOME || join(b.home, '.config'), ...parts);

/**
 * A table `{…, command}` in a TOML array of tables (`[[hooks]]`, or another path: `[[hooks.PreToolUse]]`) whose `command`
 * is sparehand's hook for `agent`.
 */
export function tomlHooksTarget(o: {
  agent: string;
  scope: Scope;
  path: (base: InstallBase) => string;
  arrayPath?: readonly string[];
  entry: (hook: HookCommand) => Record<string, string | number | boolean>;
}): TomlHookTarget {
  const commandOf = (entry: unknown): string | undefined => (isObject(entry) && typeof entry.command === 'string' ? entry.command : undefined);
  return {
    kind: 'toml',
    scope: o.scope,
    path: o.path,
    arrayPath: o.arrayPath ?? ['hooks'],
    entry: o.entry,
    isOurs: (entry) => isSparehandCommand(commandOf(entry), o.agent),
    commandOf,
  };
}
