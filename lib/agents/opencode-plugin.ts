// The OpenCode plugin file sparehand installs: it hands each shell call to `sparehand agent hook --for opencode`
// and applies the answer. No import from OpenCode; every failure leaves the call alone, but a refusal throws.
import { hookShell } from './shapes.js';
import type { HookCommand } from './types.js';

export const PLUGIN_MARK = '// sparehand plugin';

export function pluginSource(hook: HookCommand): string {
  return `${PLUGIN_MARK}: sends heavy shell commands through \`sparehand run\`. Written by \`sparehand agent install opencode\`; remove with \`sparehand agent uninstall opencode\`.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

const NODE = ${JSON.stringify(hook.node)};
const SCRIPT = ${JSON.stringify(hook.script)};

// Runs the hook with the call on stdin; any failure (sparehand gone, crash, 10 s timeout, bad JSON) is null.
function ask(payload) {
  return new Promise((resolve) => {
    if (!existsSync(NODE) || !existsSync(SCRIPT)) return resolve(null);
    let out = "";
    let done = false;
    let timer;
    const finish = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    let child;
    try {
      child = spawn(NODE, [SCRIPT, "agent", "hook", "--for", "opencode"], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve(null);
    }
    timer = setTimeout(() => {
      try { child.kill("SIGKILL"); } catch {}
      finish(null);
    }, 10000);
    child.on("error", () => finish(null));
    child.stdout.on("data", (d) => { out += d; });
    child.on("close", () => {
      try { finish(out.trim() ? JSON.parse(out) : null); } catch { finish(null); }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

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

/** The hook command a plugin file calls, read back from its text. */
export function pluginCommand(text: string): string | undefined {
  if (!text.startsWith(PLUGIN_MARK)) return undefined;
  const node = /^const NODE = (".*");$/m.exec(text)?.[1];
  const script = /^const SCRIPT = (".*");$/m.exec(text)?.[1];
  if (!node || !script) return undefined;
  try {
    return hookShell(JSON.parse(node) as string, JSON.parse(script) as string, 'opencode');
  } catch {
    return undefined;
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
