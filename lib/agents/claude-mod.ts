// Claude Code's mod: sparehand's hook inside Claude Code's own process, in place of the settings hook where the
// installed Claude Code can load one. Sources: code.claude.com/docs/en/plugins/mods/overview, /create, /troubleshoot,
// /admin (via the search tool's stored copies), read 2026-12-03; what Claude Code 2.1.332 did with a mod, seen the same
// day in a throwaway HOME against a fake model (docs/agents.md "The mod"):
// - a plugin folder in ~/.claude/skills/<name>/ (`.claude-plugin/plugin.json`, `hooks/hooks.json` naming the module
//   under `modules`) loads as `<name>@skills-dir`, tier user, with no marketplace and nothing else written (the
//   marketplace route, `claude plugin marketplace add` + `install`, took 18 s each here with no network);
// - under `claude -p` it loads with no flag and no question; interactively it loads once the folder is trusted;
// - a module's hooks run on a worker thread of Claude Code's ("worker hop"), and Claude Code reads the module's source
//   before it loads it: `$` must be spelled `$.noun.event(...)` where it is called, `$.env.get` takes a literal name;
// - the Bash call's event is flat (`e.command`), its rewrite is `next({ ...e, command })`; the permission check
//   (`tool.check`) then judges the rewritten command, and a hook may answer it `{ decision: "allow" }`; its `next`
//   refuses a changed input, but `$.tool.check({ tool, input })` gives Claude Code's verdict on any input, the
//   original command's included (its rules, its flags, its mode: the mod needs no reading of /proc for them).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SparehandError } from '../errors.js';
import { packagePath } from '../package-files.js';
import { hookShell, isObject } from './shapes.js';
import type { HookCommand, InProcessHook, InstallBase, OwnFileTarget } from './types.js';

const MOD_MARK = '// sparehand mod';
const NAME = 'sparehand';
/** The mod's folder: a plugin in Claude Code's skills folder loads as `sparehand@skills-dir`. */
export const modDir = (b: InstallBase): string => join(b.home, '.claude', 'skills', NAME);
export const MOD_ID = `${NAME}@skills-dir`;
/** The bundled body (scripts/build.js: lib/in-process/claude-mod.ts). */
export const MOD_CORE = 'dist/claude-mod-core.mjs';
/** What `agent test` runs the mod with (scripts/build.js: lib/agents/claude-mod-stand-in.ts). */
const MOD_STAND_IN = 'dist/claude-mod-stand-in.mjs';

/** The variables the hook reads (test/hook/in-process.test.ts holds the hook to them): Claude Code lends them by name. */
export const MOD_ENV = [
  'HOME',
  'USERPROFILE',
  'PATH',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'SPAREHAND',
  'SPAREHAND_RUN',
  'SPAREHAND_CONFIG',
  'SPAREHAND_AGENT_CLAUDE_CODE',
  'SPAREHAND_PLATFORM_HERE',
  'SPAREHAND_NO_PROC',
  'CLAUDE_PROJECT_DIR',
] as const;

const header = (hook: HookCommand, what: string): string =>
  `${MOD_MARK}: ${what}. Written by \`sparehand agent install ${hook.agent}\`; remove with \`sparehand agent uninstall ${hook.agent}\`.`;

/** The mod's module: asks the bundled hook about each Bash call, rewrites it, and keeps the permission check as the settings hook's answer would. */
export function modSource(hook: HookCommand): string {
  return `${header(hook, 'sends heavy shell commands through `sparehand run`, inside Claude Code')}
import { answerCall, startSession } from "./sparehand-core.mjs";

const NODE = ${JSON.stringify(hook.node)};
const SCRIPT = ${JSON.stringify(hook.script)};

// Read once a session: the variables the hook reads (each spelled out: Claude Code lends them by name), the session.
let session;
// The calls this mod rewrote, by tool_use_id: their original command and the rewrite, until their permission check.
const rewritten = new Map();

export function register(on) {
  on("tool.call", { tool: "Bash" }, async ($, e, next) => {
    const lender = {
      read: (path) => $.fs.read(path),
      bytes: async (path, length) => Uint8Array.from(atob((await $.fs.read(path, { as: "bytes", length })).base64), (c) => c.charCodeAt(0)),
      stat: (path, follow) => $.fs.stat(path, { resolve: follow }),
      list: async (path) => (await $.fs.list(path)).map((entry) => entry.name),
      write: (path, text) => $.fs.write(path, text),
    };
    if (session === undefined) {
      // All at once: each call of $ is a hop to Claude Code's main thread.
      const [${MOD_ENV.join(', ')}] = await Promise.all([
${MOD_ENV.map((n) => `        $.env.get(${JSON.stringify(n)}),`).join('\n')}
      ]);
      const env = { ${MOD_ENV.join(', ')} };
      const [info, machine, own, id, root] = await Promise.all([$.session.info(), $.session.machine(), $.process.hookEnv(), $.session.id(), $.session.root()]);
      await startSession(lender, env);
      session = { id, root, env, machine: { platform: info.platform, arch: machine.machine, pid: Number(own.CLAUDE_PID) || 0 } };
    }
    const answer = await answerCall({ event: e, cwd: await $.session.cwd(), session, self: { node: NODE, script: SCRIPT }, lender });
    if (answer.deny !== undefined) return { deny: answer.deny };
    if (answer.input === undefined) return next(e);
    rewritten.set(e.tool_use_id, { original: e.command, command: answer.input.command });
    return next(answer.input);
  }).catch(($, e, next) => next(e));

  // Permission parity: a rewrite is approved exactly when Claude Code would approve the original (its rules, its
  // command-line flags, its mode), and a deny or ask rule of the rewritten command still holds.
  on("tool.check", { tool: "Bash" }, async ($, e, next) => {
    const verdict = await next(e);
    const call = rewritten.get(e.tool_use_id);
    rewritten.delete(e.tool_use_id);
    if (call === undefined || call.command !== e.input.command) return verdict;
    if (verdict.decision === "deny" || (verdict.decision === "ask" && verdict.rule !== undefined)) return verdict;
    const original = await $.tool.check({ tool: e.tool, input: { ...e.input, command: call.original } });
    if (original.decision === "allow") return { decision: "allow" };
    if (original.decision === "deny") return { decision: "deny", reason: original.reason };
    return verdict;
  }).catch(($, e, next) => next(e));
}
`;
}

/** The bundled body, with its mark; a checkout that was not built cannot write the mod. */
function coreSource(hook: HookCommand): string {
  const file = packagePath(MOD_CORE);
  try {
    return `${header(hook, "the hook's own steps, bundled")}\n${readFileSync(file, 'utf8')}`;
  } catch (e) {
    throw new SparehandError('INSTALL', `the mod's body is missing (${file}): this installation of sparehand was not built`, {
      cause: e,
      hint: 'run `npm run build` in its folder, then install again',
    });
  }
}

const manifest = (hook: HookCommand): string =>
  `${JSON.stringify({ name: NAME, version: '1.0.0', author: { name: 'sparehand' }, description: `${header(hook, 'sends heavy shell commands through `sparehand run`, inside Claude Code')}` }, null, 2)}\n`;
const HOOKS = `${JSON.stringify({ modules: ['./sparehand.mjs'] }, null, 2)}\n`;

/** The command a mod file stands for (its module: the sparehand it names), or undefined when the file is not sparehand's. */
function commandOfModule(text: string): string | undefined {
  if (!text.startsWith(MOD_MARK)) return undefined;
  const node = /^const NODE = (".*");$/m.exec(text)?.[1];
  const script = /^const SCRIPT = (".*");$/m.exec(text)?.[1];
  if (!node || !script) return undefined;
  try {
    return hookShell(JSON.parse(node) as string, JSON.parse(script) as string, 'claude-code');
  } catch {
    return undefined;
  }
}

/** What the mod's other files stand for: the mod itself. */
const MOD_FILE = 'sparehand mod';
const ownJson = (check: (doc: Record<string, unknown>) => boolean) => (text: string) => {
  try {
    const doc = JSON.parse(text) as unknown;
    return isObject(doc) && check(doc) ? MOD_FILE : undefined;
  } catch {
    return undefined;
  }
};

/** For `agent test`: node code that runs the installed mod against a stand-in of Claude Code (claude-mod-stand-in.ts). */
const modProbe = (file: string, command: string, cwd: string): string => `
const { tryMod } = await import(${JSON.stringify(pathToFileURL(packagePath(MOD_STAND_IN)).href)});
process.stdout.write(JSON.stringify(await tryMod(${JSON.stringify(file)}, ${JSON.stringify(command)}, ${JSON.stringify(cwd)}, process.env)));
`;

/** One of the mod's files; the module is the one `agent test` runs (`probe`). */
const file = (
  rel: string,
  content: (hook: HookCommand) => string,
  commandOf: (text: string) => string | undefined,
  probe?: OwnFileTarget['probe'],
): OwnFileTarget => ({
  kind: 'file',
  scope: 'user',
  path: (b) => join(modDir(b), rel),
  content,
  commandOf,
  ...(probe ? { probe } : {}),
});

/** Why the Claude Code here would not load sparehand's mod though new enough, from what its settings say, or undefined. */
export function modBlockedBy(managed: unknown, user: unknown): string | undefined {
  const options = (doc: unknown) => {
    const c = isObject(doc) && isObject(doc.pluginConfigs) ? doc.pluginConfigs['cc-plugin-sec-default@builtin'] : undefined;
    return isObject(c) && isObject(c.options) ? c.options : undefined;
  };
  if (options(managed)?.allowManagedModsOnly === true)
    return "your organization allows only its own mods (allowManagedModsOnly in Claude Code's managed settings)";
  if (isObject(user) && isObject(user.enabledPlugins) && user.enabledPlugins[MOD_ID] === false)
    return `it is turned off in Claude Code (\`claude plugin disable ${MOD_ID}\`; \`claude plugin enable ${MOD_ID}\` turns it on)`;
  return undefined;
}

/** Claude Code's managed settings file on this system (code.claude.com/docs/en/settings, "Settings files"). */
export const managedSettingsFile = (): string =>
  process.platform === 'darwin'
    ? '/Library/Application Support/ClaudeCode/managed-settings.json'
    : process.platform === 'win32'
      ? 'C:\\Program Files\\ClaudeCode\\managed-settings.json'
      : '/etc/claude-code/managed-settings.json';

const readJson = (path: string): unknown => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
};

/** sparehand's mod, installed at user level in place of the settings hook where Claude Code can load it. */
export const claudeMod: InProcessHook = {
  name: 'a mod',
  since: '2.1.287',
  targets: [
    file('hooks/sparehand.mjs', modSource, commandOfModule, modProbe),
    file('hooks/sparehand-core.mjs', coreSource, (t) => (t.startsWith(MOD_MARK) ? MOD_FILE : undefined)),
    file(
      'hooks/hooks.json',
      () => HOOKS,
      ownJson((d) => JSON.stringify(d) === JSON.stringify(JSON.parse(HOOKS))),
    ),
    file(
      '.claude-plugin/plugin.json',
      manifest,
      ownJson((d) => d.name === NAME && String(d.description).startsWith(MOD_MARK)),
    ),
  ],
  blockedBy: (b) => modBlockedBy(readJson(managedSettingsFile()), readJson(join(b.home, '.claude', 'settings.json'))),
  afterInstall: [
    `Claude Code loads the mod (${MOD_ID}) at its next start; under \`claude -p\` at once, in an interactive session once you trust the folder. \`claude --debug\` shows "hooks module ${MOD_ID} loaded".`,
  ],
};
