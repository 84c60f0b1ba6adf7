// The plugin file sparehand installs into tools that load OpenCode's plugin API (OpenCode itself, and forks that
// kept it, such as Kilo): it answers each shell call inside the tool's own process with the hook's own steps
// (opencode-plugin-main.ts, bundled into the file) and applies the answer. No import from the tool, no process per
// call; every failure leaves the call alone, but a refusal throws. The payload names the host it was written for,
// since several tools send the same shape (and a plugin written before sparehand answered in-process still sends it to
// `sparehand agent hook`).
import { readFileSync } from 'node:fs';
import { SparehandError } from '../errors.js';
import { packagePath } from '../package-files.js';
import * as p from './payload-shape.js';
import { pluginFileTarget, pluginHeader } from './plugin-file.js';
import { json, looseInput, numField, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, HookAnswer, HookCommand, InstallBase, OwnFileTarget, Scope, ShellCall, WireAnswer } from './types.js';

/** The plugin file: its first lines (where sparehand is, which tool), then the bundled body (opencode-plugin-main.ts). */
export function pluginSource(hook: HookCommand): string {
  return `${pluginHeader(hook)}${pluginBody()}`;
}

/** The bundled body, as scripts/build.js wrote it; a checkout that was not built cannot write the plugin. */
function pluginBody(): string {
  const file = packagePath(PLUGIN_BODY);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new SparehandError('INSTALL', `the plugin's body is missing (${file}): this installation of sparehand was not built`, {
      cause: e,
      hint: 'run `npm run build` in its folder, then install again',
    });
  }
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

/** The bundled body of the plugin, in the package (scripts/build.js). */
export const PLUGIN_BODY = 'dist/opencode-plugin.mjs';

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
