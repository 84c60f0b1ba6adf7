// The body of sparehand's plugin for tools that load OpenCode's plugin API (OpenCode, Kilo): each shell call is
// answered inside the tool's own process by the hook's own steps (lib/hook/in-process.ts), with the same payload the
// hook process was sent, so no process starts for a call and the answer is the hook's. scripts/build.js bundles this
// file into dist/opencode-plugin.mjs; install writes it after the plugin's first lines (lib/agents/plugin-file.ts pluginHeader),
// which set NODE, SCRIPT and HOST. Every failure leaves the call alone; only a refusal throws.
import { existsSync, realpathSync } from 'node:fs';
import { answerInProcess } from '../hook/in-process.js';
import type { Self } from '../self.js';
import { which } from '../which.js';
import { pluginHook } from '../agents/opencode-plugin.js';
import type { AgentId } from '../agents/index.js';
import type { HookSpec } from '../agents/types.js';
import type { PluginPayload } from '../agents/opencode-plugin.js';

/** Set by the plugin's first lines: sparehand's node and script (NODE null: `sparehand` from PATH), and its tool. */
declare const NODE: string | null;
declare const SCRIPT: string;
declare const HOST: AgentId;

// The tool's hook, as its spec has it: every tool that loads this plugin is connected by rewriting (opencode.ts, kilo.ts).
const spec = { id: HOST, name: HOST, connection: 'rewrite', ...pluginHook(HOST) } satisfies HookSpec<PluginPayload> as HookSpec;

/** The sparehand a rewrite names: the installation that wrote the plugin, or the one on PATH (a project's plugin). */
function sparehandHere(env: NodeJS.ProcessEnv): Self | undefined {
  if (NODE !== null) return existsSync(NODE) && existsSync(SCRIPT) ? { node: NODE, script: SCRIPT } : undefined;
  const script = which(SCRIPT, env.PATH);
  const node = which('node', env.PATH);
  return script && node ? { node, script: realpathSync(script) } : undefined;
}

/** The hook's answer for one call (`{args}` to rewrite, `{error}` to refuse), or null to leave it alone. */
async function ask(payload: Record<string, unknown>, directory: string): Promise<unknown> {
  const env = process.env;
  let self: Self | undefined;
  try {
    self = sparehandHere(env);
  } catch {
    self = undefined;
  }
  if (self === undefined) return null;
  const ctx = { home: env.HOME || env.USERPROFILE || '/', cwd: directory, env, self };
  const answer = await answerInProcess(spec, { host: HOST, ...payload }, ctx);
  return answer.stdout.trim() ? JSON.parse(answer.stdout) : null;
}

/** Rewrites args in place (the tool runs what is left in them), or throws the refusal for the model to read. */
async function apply(tool: unknown, sessionID: unknown, callID: unknown, args: unknown, directory: string): Promise<void> {
  if (!args || typeof args !== 'object' || typeof (args as { command?: unknown }).command !== 'string') return;
  let answer: { args?: unknown; error?: unknown } | null;
  try {
    answer = (await ask({ tool, sessionID, callID, args, directory }, directory)) as { args?: unknown; error?: unknown } | null;
  } catch {
    return;
  }
  if (!answer || typeof answer !== 'object') return;
  const next = answer.args as { command?: unknown } | undefined;
  if (next && typeof next === 'object' && typeof next.command === 'string') Object.assign(args, next);
  else if (typeof answer.error === 'string' && answer.error) throw new Error(answer.error);
}

type Ctx = { directory?: string; worktree?: string; tool?: { hook?: (name: string, fn: (event: Record<string, unknown>) => Promise<void>) => void } };

export const SparehandPlugin = async (ctx: Ctx | undefined) => {
  const directory = ctx?.directory || ctx?.worktree || process.cwd();
  try {
    // Plugin API v2: tool domain hooks; the event's input is mutable.
    const tool = ctx?.tool;
    if (tool && typeof tool.hook === 'function') {
      tool.hook('execute.before', async (event) => {
        if (event?.input && typeof event.input === 'object') await apply(event.tool, event.sessionID, event.id, event.input, directory);
      });
    }
  } catch {
    // an API of another shape: v1 below still answers
  }
  return {
    // Plugin API v1: mutate output.args.
    'tool.execute.before': async (input: Record<string, unknown> | undefined, output: { args?: unknown } | undefined) => {
      await apply(input?.tool, input?.sessionID, input?.callID, output?.args, directory);
    },
  };
};
