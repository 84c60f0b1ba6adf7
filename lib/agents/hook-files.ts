// Whole files sparehand writes as a tool's hook: an executable script (tools that run a file named after the event)
// and an in-process plugin for tools that load JavaScript. Both carry a marker line naming the hook command.
import type { HookCommand, OwnFileTarget, Scope } from './types.js';

const MARKER = /^(?:#|\/\/) sparehand-hook: (.+)$/m;
const markerOf = (text: string): string | undefined => MARKER.exec(text)?.[1];

const sh = (p: string) => (/["$`\\\n]/.test(p) ? `'${p.replaceAll("'", `'\\''`)}'` : `"${p}"`);

/**
 * An executable hook (payload on stdin, answer on stdout): a missing sparehand exits 0 silently; otherwise `exec`
 * hands over so the hook's own exit status and output are the script's.
 */
export function executableHook(scope: Scope, path: OwnFileTarget['path']): OwnFileTarget {
  return {
    kind: 'file',
    scope,
    path,
    mode: 0o755,
    content: (c: HookCommand) =>
      [
        '#!/bin/sh',
        `# sparehand-hook: ${c.shell}`,
        `# Written by \`sparehand agent install ${c.agent}\`; \`sparehand agent uninstall ${c.agent}\` removes it.`,
        `[ -f ${sh(c.script)} ] && [ -x ${sh(c.node)} ] && exec ${c.shell}`,
        'exit 0',
        '',
      ].join('\n'),
    commandOf: markerOf,
  };
}

/** The plugin's source: spawns the hook with the call as JSON, applies its answer, never breaks the tool. */
function pluginSource(c: HookCommand, shellTools: readonly string[]): string {
  return `// sparehand-hook: ${c.shell}
// Written by \`sparehand agent install ${c.agent}\`; \`sparehand agent uninstall ${c.agent}\` removes it.
// Sends each shell call to sparehand's hook; a heavy command is rewritten to run through \`sparehand run\` (or
// refused with the command to run instead). If sparehand is gone, fails or is slow, the call is left alone.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const NODE = ${JSON.stringify(c.node)};
const SCRIPT = ${JSON.stringify(c.script)};
const SHELL_TOOLS = new Set(${JSON.stringify(shellTools)});
const TIMEOUT_MS = 10000;

function ask(payload) {
  return new Promise((resolve) => {
    if (!existsSync(NODE) || !existsSync(SCRIPT)) return resolve(null);
    let out = '';
    let done = false;
    let child;
    const finish = (v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => {
      try { child && child.kill(); } catch {}
      finish(null);
    }, TIMEOUT_MS);
    try {
      child = spawn(NODE, [SCRIPT, 'agent', 'hook', '--for', ${JSON.stringify(c.agent)}], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      return finish(null);
    }
    child.on('error', () => finish(null));
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      if (code !== 0 || !out.trim()) return finish(null);
      try { finish(JSON.parse(out)); } catch { finish(null); }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// Asks the hook about one call and changes \`args\` in place; returns a refusal message, if any.
async function decide(tool, ids, args, where) {
  try {
    if (!SHELL_TOOLS.has(tool) || !args || typeof args.command !== 'string') return undefined;
    const answer = await ask({ input: { tool, ...ids }, output: { args: { ...args } }, ...where });
    if (!answer || typeof answer !== 'object') return undefined;
    const refusal = answer.throw && answer.throw.message;
    if (typeof refusal === 'string' && refusal) return refusal;
    const next = (answer.output && answer.output.args) || answer.args;
    if (next && typeof next === 'object' && typeof next.command === 'string') Object.assign(args, next);
  } catch {}
  return undefined;
}

const seen = new WeakSet();

export const SparehandPlugin = async (ctx) => {
  const where = { directory: ctx && ctx.directory, worktree: ctx && ctx.worktree };
  // v2: \`execute.before\` gets one event whose \`input\` is the call's arguments.
  const v2 = async (event) => {
    if (!event || seen.has(event)) return;
    seen.add(event);
    const refusal = await decide(event.tool, { sessionID: event.sessionID, callID: event.id }, event.input, where);
    if (refusal) throw new Error(refusal);
  };
  try {
    if (ctx && ctx.tool && typeof ctx.tool.hook === 'function') ctx.tool.hook('execute.before', v2);
  } catch {}
  return {
    // v1: \`tool.execute.before(input, output)\`, arguments in \`output.args\`.
    'tool.execute.before': async (input, output) => {
      const refusal = await decide(input && input.tool, { sessionID: input && input.sessionID, callID: input && input.callID }, output && output.args, where);
      if (refusal) throw new Error(refusal);
    },
    'execute.before': v2,
  };
};
`;
}

/** Loads the plugin in node, calls its v1 hook with one shell call and prints the neutral outcome (for `agent test`). */
function pluginProbe(file: string, command: string, cwd: string, tool: string): string {
  return `
const { pathToFileURL } = await import('node:url');
const m = await import(pathToFileURL(${JSON.stringify(file)}).href);
const hooks = await m.SparehandPlugin({ directory: ${JSON.stringify(cwd)}, worktree: ${JSON.stringify(cwd)} });
const command = ${JSON.stringify(command)};
const output = { args: { command, description: 'sparehand agent test' } };
let outcome;
try {
  await hooks['tool.execute.before']({ tool: ${JSON.stringify(tool)}, sessionID: 'sparehand-agent-test', callID: 'call_sparehand_test' }, output);
  outcome = output.args.command === command ? { kind: 'leave' } : { kind: 'rewrite', command: output.args.command };
} catch (e) {
  outcome = { kind: 'refuse', reason: String(e && e.message) };
}
process.stdout.write(JSON.stringify(outcome));
`;
}

/** An in-process JavaScript plugin that needs no import from the tool (it works with the v1 and v2 hook APIs). */
export function pluginHook(scope: Scope, path: OwnFileTarget['path'], shellTools: readonly string[]): OwnFileTarget {
  return {
    kind: 'file',
    scope,
    path,
    content: (c) => pluginSource(c, shellTools),
    commandOf: markerOf,
    probe: (file, command, cwd) => pluginProbe(file, command, cwd, shellTools[0] ?? 'bash'),
  };
}
