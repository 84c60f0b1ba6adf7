// Amp (Sourcegraph). Sources: ampcode.com/manual/plugin-api (the @ampcode/plugin README and types), ampcode.com/manual
// (permissions: `amp.permissions`, Bash's `cmd`), read 2026-12-01; what the real program's bundled source shows is in
// docs/real-programs.md ("More tools"). Not confirmed in the real program: its model runs on Amp's server.
import * as p from './payload-shape.js';
import { pluginFileTarget, pluginPrelude } from './plugin-file.js';
import { inConfigHome, inProject, isObject, json, once } from './shapes.js';
import type { AgentSpec, HookCommand, InstallBase, OwnFileTarget } from './types.js';

// The first line Amp's plugin loader has asked for (ampcode.com/manual/plugin-api).
const OPT_IN = '// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now';

/** The plugin: asks the hook about each Bash call; `modify` with the rewritten input, or rejects with the reason. */
function pluginSource(hook: HookCommand): string {
  return `${pluginPrelude(hook, { firstLine: OPT_IN })}
export default function (amp) {
  amp.on("tool.call", async (event, ctx) => {
    const input = event && event.input;
    if (!input || typeof input !== "object") return;
    let answer = null;
    try {
      const thread = (ctx && ctx.thread && ctx.thread.id) || (event.thread && event.thread.id);
      answer = await ask({ tool: event.tool, toolUseID: event.toolUseID, thread, input, directory: process.cwd() });
    } catch {
      return;
    }
    if (!answer || typeof answer !== "object") return;
    if (answer.input && typeof answer.input === "object") return { action: "modify", input: answer.input };
    if (typeof answer.error === "string" && answer.error) return { action: "reject-and-continue", message: answer.error };
  });
}
`;
}

/** For `agent test`: loads the plugin, calls its tool.call handler with one Bash call as Amp would, prints the outcome. */
function pluginProbe(file: string, command: string, cwd: string): string {
  return `
const { pathToFileURL } = await import('node:url');
const { readFileSync, writeFileSync, mkdtempSync } = await import('node:fs');
const { join } = await import('node:path');
const { tmpdir } = await import('node:os');
// Amp loads TypeScript; this plugin is plain JavaScript, so node can load a copy named .mjs.
const copy = join(mkdtempSync(join(tmpdir(), 'sparehand-probe-')), 'plugin.mjs');
writeFileSync(copy, readFileSync(${JSON.stringify(file)}, 'utf8'));
const m = await import(pathToFileURL(copy).href);
let handler;
m.default({ on: (name, fn) => { if (name === 'tool.call') handler = fn; } });
process.chdir(${JSON.stringify(cwd)});
const command = ${JSON.stringify(command)};
let outcome;
const r = await handler({ tool: 'Bash', toolUseID: 'toolu_sparehand_test', input: { cmd: command } }, {});
if (r && r.action === 'modify') outcome = { kind: 'rewrite', command: r.input.cmd };
else if (r && r.action === 'reject-and-continue') outcome = { kind: 'refuse', reason: r.message };
else outcome = { kind: 'leave' };
process.stdout.write(JSON.stringify(outcome));
`;
}

const payload = once(() =>
  p.looseObject({
    host: p.literal('amp'),
    tool: p.string(),
    input: p.looseObject({ cmd: p.string() }),
    toolUseID: p.optional(p.string()),
    thread: p.optional(p.string()),
    directory: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string): OwnFileTarget =>
  pluginFileTarget(scope, path, { content: pluginSource, probe: pluginProbe });

export const amp: AgentSpec<Payload> = {
  id: 'amp',
  name: 'Amp',
  connection: 'rewrite',
  why: 'An Amp plugin\'s tool.call handler can replace the Bash tool\'s input ({"action":"modify"}); its "delegate" permission program can only allow, ask or reject every command it sees. Amp loads plugins only when run with PLUGINS=all, so a note in AGENTS.md asks the model as well.',
  facts: {
    sources: [
      { title: 'Amp plugin API', url: 'https://ampcode.com/manual/plugin-api', read: '2026-12-01' },
      { title: 'Amp manual: permissions', url: 'https://ampcode.com/manual/appendix', read: '2026-12-01' },
    ],
    confirmed: [],
    documented: 'ampcode.com/manual (plugin API marked experimental), 2026-12-01',
    failMode:
      'In-process: the plugin catches every failure of the hook (sparehand gone, a crash, a 10 s timeout, bad JSON) and returns nothing, leaving the call to Amp; only a refusal rejects the call, with the reason for the model.',
    quirks: [
      'Not run here: the model runs on Amp\'s server (docs/real-programs.md, "More tools").',
      'The plugin API is experimental and off unless Amp runs with PLUGINS=all (plugin-api docs).',
      'A delegate permission program\'s stdout is ignored: it cannot rewrite, and answering "allow" to leave a command alone would approve it (docs/real-programs.md, "More tools"; permissions docs).',
      'Permission rules appear to see the original command, not the plugin\'s change (docs/real-programs.md, "More tools").',
      "Bash's input names the command `cmd` (permissions docs).",
    ],
  },
  program: {
    binary: { name: 'amp', versionArgs: ['--version'] },
    folders: (b) => [inConfigHome('amp')(b)],
  },
  shellTools: ['Bash'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.host === 'amp' && typeof raw.tool === 'string',
  read: (p) => ({ tool: p.tool, command: p.input.cmd, cwd: typeof p.input.cwd === 'string' ? p.input.cwd : p.directory, sessionId: p.thread ?? p.toolUseID }),
  // The plugin's protocol: {"input": {...}} to modify the call, {"error": "..."} to reject it.
  encode: (answer, p) =>
    answer.kind === 'refuse' ? json({ error: answer.reason }) : json({ input: { ...(isObject(p.input) ? p.input : {}), cmd: answer.command } }),
  install: {
    targets: [target('user', inConfigHome('amp', 'plugins', 'sparehand.ts')), target('project', inProject('.amp', 'plugins', 'sparehand.ts'))],
    notes: [
      { scope: 'user', path: inConfigHome('amp', 'AGENTS.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'Amp loads plugins only when started with PLUGINS=all (its plugin API is experimental); without it, the note in AGENTS.md is what asks the model.',
    ],
  },
};
