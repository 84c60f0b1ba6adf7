// What every JavaScript plugin file of sparehand's shares, whichever plugin API its tool has: the marked first line and
// where sparehand is (pluginHeader); for a plugin that asks the hook process, `ask`, which hands one call to
// `sparehand agent hook --for <host>` and reads the answer. Every failure (sparehand gone, a crash, a 10 s timeout, bad
// JSON) is "no answer": the plugin leaves the call alone.
import { hookShell, portableShell } from './shapes.js';
import type { HookCommand, InstallBase, OwnFileTarget, Scope } from './types.js';

const PLUGIN_MARK = '// sparehand plugin';

/** The mark, and where node and sparehand are (`NODE` null: \`sparehand\` from PATH) and which tool it was written for. */
export function pluginHeader(hook: HookCommand, opts: { firstLine?: string } = {}): string {
  return `${opts.firstLine ? `${opts.firstLine}\n` : ''}${PLUGIN_MARK}: sends heavy shell commands through \`sparehand run\`. Written by \`sparehand agent install ${hook.agent}\`; remove with \`sparehand agent uninstall ${hook.agent}\`.
const NODE = ${hook.portable ? 'null' : JSON.stringify(hook.node)};
const SCRIPT = ${JSON.stringify(hook.script)};
const HOST = ${JSON.stringify(hook.agent)};
`;
}

/** The plugin's first lines (pluginHeader), then `ask`, which hands one call to the hook process. */
export function pluginPrelude(hook: HookCommand, opts: { firstLine?: string } = {}): string {
  return `${pluginHeader(hook, opts)}import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

// Runs the hook with the call on stdin; any failure (sparehand gone, crash, 10 s timeout, bad JSON) is null.
function ask(payload) {
  return new Promise((resolve) => {
    // NODE null (a project's plugin, shared by a team): \`sparehand\` from PATH; not there is an error, so null.
    if (NODE !== null && (!existsSync(NODE) || !existsSync(SCRIPT))) return resolve(null);
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
      const args = ["agent", "hook", "--for", HOST];
      child = NODE === null ? spawn(SCRIPT, args, { stdio: ["pipe", "pipe", "ignore"] }) : spawn(NODE, [SCRIPT, ...args], { stdio: ["pipe", "pipe", "ignore"] });
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
    child.stdin.end(JSON.stringify({ host: HOST, ...payload }));
  });
}
`;
}

/**
 * The hook command a plugin file calls, read back from its text (`undefined`: not sparehand's). A plugin written
 * before it named its HOST calls the tool named in its spawn arguments.
 */
export function pluginCommand(text: string): string | undefined {
  if (!text.split('\n', 2).some((l) => l.startsWith(PLUGIN_MARK))) return undefined;
  const node = /^const NODE = (".*"|null);$/m.exec(text)?.[1];
  const script = /^const SCRIPT = (".*");$/m.exec(text)?.[1];
  const host = /^const HOST = (".*");$/m.exec(text)?.[1] ?? /"--for", ("[\w-]+")/.exec(text)?.[1];
  if (!node || !script || !host) return undefined;
  try {
    if (node === 'null') return portableShell(JSON.parse(host) as string);
    return hookShell(JSON.parse(node) as string, JSON.parse(script) as string, JSON.parse(host) as string);
  } catch {
    return undefined;
  }
}

/** sparehand's plugin file at `path`: its text from `content`, its command read back, `probe` for `agent test`. */
export const pluginFileTarget = (
  scope: Scope,
  path: (b: InstallBase) => string,
  plugin: { content: (hook: HookCommand) => string; probe: NonNullable<OwnFileTarget['probe']> },
): OwnFileTarget => ({ kind: 'file', scope, path, content: plugin.content, commandOf: pluginCommand, probe: plugin.probe });
