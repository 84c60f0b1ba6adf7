// The plugin file sparehand installs into tools that load OpenCode's plugin API (OpenCode itself, and forks that
// kept it, such as Kilo): it hands each shell call to `sparehand agent hook --for <host>` (plugin-file.ts) and applies
// the answer. No import from the tool; every failure leaves the call alone, but a refusal throws. The payload names
// the host it was written for, since several tools send the same shape.
import * as p from './payload-shape.js';
import { pluginFileTarget, pluginPrelude } from './plugin-file.js';
import { json, looseInput, numField, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, HookAnswer, HookCommand, InstallBase, OwnFileTarget, Scope, ShellCall, WireAnswer } from './types.js';

export function pluginSource(hook: HookCommand): string {
  return `${pluginPrelude(hook)}
// Rewrites args in place (OpenCode runs what is left in them), or throws the refusal for the model to read.
async function apply(tool, sessionID, callID, args, directory) {
  if (!args || typeof args !== "object" || typeof args.command !== "string") return;
  let answer = null;
  try {
    answer = await ask({ tool, sessionID, callID, args, directory });
  } catch {
    return;
  }
  if (!answer || typeof answer !== "object") return;
  if (answer.args && typeof answer.args === "object" && typeof answer.args.command === "string") {
    Object.assign(args, answer.args);
  } else if (typeof answer.error === "string" && answer.error) {
    throw new Error(answer.error);
  }
}

export const SparehandPlugin = async (ctx) => {
  const directory = (ctx && (ctx.directory || ctx.worktree)) || process.cwd();
  try {
    // Plugin API v2: tool domain hooks; the event's input is mutable.
    if (ctx && ctx.tool && typeof ctx.tool.hook === "function") {
      ctx.tool.hook("execute.before", async (event) => {
        if (event && event.input && typeof event.input === "object") {
          await apply(event.tool, event.sessionID, event.id, event.input, directory);
        }
      });
    }
  } catch {}
  return {
    // Plugin API v1: mutate output.args.
    "tool.execute.before": async (input, output) => {
      await apply(input && input.tool, input && input.sessionID, input && input.callID, output && output.args, directory);
    },
  };
};
`;
}

/**
 * For `agent test`: node code that loads the installed plugin, calls its v1 hook with one bash call as OpenCode
 * would, and prints the outcome (`{"kind":"rewrite","command"}` | `{"kind":"refuse","reason"}` | `{"kind":"leave"}`).
 */
export function pluginProbe(file: string, command: string, cwd: string): string {
  return `
const { pathToFileURL } = await import('node:url');
const m = await import(pathToFileURL(${JSON.stringify(file)}).href);
const hooks = await m.SparehandPlugin({ directory: ${JSON.stringify(cwd)}, worktree: ${JSON.stringify(cwd)} });
const command = ${JSON.stringify(command)};
const output = { args: { command, description: 'sparehand agent test' } };
let outcome;
try {
  await hooks['tool.execute.before']({ tool: 'bash', sessionID: 'ses_sparehand_test', callID: 'call_sparehand_test' }, output);
  outcome = output.args.command === command ? { kind: 'leave' } : { kind: 'rewrite', command: output.args.command };
} catch (e) {
  outcome = { kind: 'refuse', reason: String(e && e.message) };
}
process.stdout.write(JSON.stringify(outcome));
`;
}

/** What the plugin sends: its host, the tool, the call's ids, its args (v1 output.args / v2 event.input), the folder. */
const pluginPayload = once(() =>
  p.looseObject({
    host: p.optional(p.string()),
    tool: p.string(),
    args: looseInput(),
    sessionID: p.optional(p.string()),
    callID: p.optional(p.string()),
    directory: p.optional(p.string()),
  }),
);
export type PluginPayload = p.Infer<ReturnType<typeof pluginPayload>>;

/** The plugin's payload, sent by the plugin written for `host` (`legacy`: also one written before it named its host). */
const isPluginPayload =
  (host: string, legacy = false) =>
  (raw: Record<string, unknown>): boolean =>
    typeof raw.tool === 'string' && typeof raw.args === 'object' && (raw.host === host || (legacy && raw.host === undefined));

/** The shell call in the plugin's payload. */
const readPluginCall = (p: PluginPayload): ShellCall => ({
  tool: p.tool,
  command: p.args.command,
  cwd: (typeof p.args.workdir === 'string' ? p.args.workdir : undefined) ?? p.directory,
  timeoutMs: numField(p.args, 'timeout'),
  sessionId: p.sessionID,
});

/** The plugin's protocol: {"args": {...}} to rewrite in place, {"error": "..."} to refuse (it throws). */
const encodePluginAnswer = (answer: Exclude<HookAnswer, { kind: 'leave' }>, p: PluginPayload): WireAnswer =>
  answer.kind === 'refuse' ? json({ error: answer.reason }) : json({ args: rewrittenInput(p.args, answer, 'timeout') });

/** sparehand's plugin file at `path`, for a tool that loads OpenCode's plugin API. */
export const pluginTarget = (scope: Scope, path: (b: InstallBase) => string): OwnFileTarget =>
  pluginFileTarget(scope, path, { content: pluginSource, probe: pluginProbe });

/**
 * The hook's side of a tool that loads OpenCode's plugin API: its bash tool, the plugin's payload and answers
 * (`legacy`: also recognise a plugin written before it named its host).
 */
export const pluginHook = (host: string, opts: { legacy?: boolean } = {}) =>
  ({
    shellTools: ['bash', 'shell'],
    sparehandName: 'absolute',
    // Its bash tool takes a timeout of at most 10 minutes (OpenCode's tool/bash.ts).
    maxTimeoutMs: 600_000,
    payload: pluginPayload,
    recognise: isPluginPayload(host, opts.legacy),
    read: readPluginCall,
    encode: encodePluginAnswer,
  }) satisfies Partial<AgentSpec<PluginPayload>>;
