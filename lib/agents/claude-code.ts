// Claude Code. Sources: code.claude.com/docs/en/hooks, /permissions, /settings via the mirror
// ericbuess/claude-code-docs (commit ec68a5b2, 2026-08-22, changelog 2.1.240), read 2026-11-29; the real
// program @anthropic-ai/claude-code@2.1.332 driven offline (docs/real-programs.md), 2026-11-29.
import * as p from './payload-shape.js';
import { claudeApproval } from './claude-permissions.js';
import { claudeMod } from './claude-mod.js';
import { claudeStyleAnswer, claudeStyleTarget, inHome, inProject, numField, once, preToolUsePayload, rewrittenInput } from './shapes.js';
import type { AgentSpec } from './types.js';

const payload = once(() => preToolUsePayload({ session_id: p.string(), permission_mode: p.optional(p.string()) }));
type Payload = p.Infer<ReturnType<typeof payload>>;

// onFailure: "block" (Claude Code 2.1.295, github.com/anthropics/claude-code release v2.1.295, 2026-10-08) blocks the
// command when the hook cannot start, times out or exits oddly: never written; `agent test` warns where the user set it.
const target = (scope: 'user' | 'project', path: ReturnType<typeof inHome>) => ({
  ...claudeStyleTarget({ agent: 'claude-code', scope, path, arrayPath: ['hooks', 'PreToolUse'], matcher: 'Bash', timeout: 10 }),
  failClosed: { key: 'onFailure', value: 'block', source: 'Claude Code 2.1.295 and later' },
});

export const claudeCode: AgentSpec<Payload> = {
  id: 'claude-code',
  name: 'Claude Code',
  connection: 'rewrite',
  why: 'Its PreToolUse hook can replace the Bash tool input (updatedInput) and mark it approved.',
  facts: {
    sources: [
      { title: 'Claude Code hooks reference', url: 'https://code.claude.com/docs/en/hooks', read: '2026-11-29' },
      { title: 'Claude Code permissions', url: 'https://code.claude.com/docs/en/permissions', read: '2026-11-29' },
      {
        title: 'Claude Code v2.1.295 release notes (onFailure: "block")',
        url: 'https://github.com/anthropics/claude-code/releases/tag/v2.1.295',
        read: '2026-12-03',
      },
      { title: 'Claude Code mods: overview', url: 'https://code.claude.com/docs/en/plugins/mods/overview', read: '2026-12-03' },
      { title: 'Claude Code mods: create a mod', url: 'https://code.claude.com/docs/en/plugins/mods/create', read: '2026-12-03' },
      { title: 'Claude Code mods: troubleshoot', url: 'https://code.claude.com/docs/en/plugins/mods/troubleshoot', read: '2026-12-03' },
      { title: 'Claude Code mods: manage mods for your organization', url: 'https://code.claude.com/docs/en/plugins/mods/admin', read: '2026-12-03' },
    ],
    confirmed: [
      {
        package: '@anthropic-ai/claude-code',
        version: '2.1.332',
        date: '2026-11-29',
        how: 'claude -p against a fake Anthropic Messages server on 127.0.0.1; updatedInput honoured, deny honoured; re-checked through sparehand agent install by test/e2e/agents/claude-code.test.ts',
      },
      {
        package: '@anthropic-ai/claude-code',
        version: '2.1.332',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/claude-code.test.ts)',
      },
      {
        package: '@anthropic-ai/claude-code',
        version: '2.1.240',
        date: '2026-12-03',
        how: 'a version that loads no mod (2.1.287 and later do): sparehand agent install put in the settings hook, which offloaded npm test to a real sshd worker under claude -p (test/e2e/agents/claude-code.test.ts)',
      },
      {
        package: '@anthropic-ai/claude-code',
        version: '2.1.332',
        date: '2026-12-03',
        how: 'still the newest on npm on 2026-12-03; sparehand agent install put in the mod (~/.claude/skills/sparehand/, loaded as sparehand@skills-dir), which rewrote npm test inside Claude Code and ran it on a real sshd worker with no `sparehand agent hook` process started (counted with strace), and started no sparehand process for a light command; with mods kept off by a managed setting, the settings hook did (test/e2e/agents/claude-code.test.ts)',
      },
    ],
    documented: '2.1.240 (docs of 2026-08-22)',
    failMode: 'Fails open: a timeout, an exit status other than 0 or 2, or output that is not JSON lets the call go on; exit 2 always blocks (CC-docs).',
    quirks: [
      'Permission rules are checked against the rewritten command: sparehand marks the rewrite approved only when the original matches an allow rule (settings files or --allowedTools) or the mode is bypassPermissions, and leaves the command alone when a deny rule matches (docs/real-programs.md, fact 1).',
      'updatedInput replaces the whole tool input: every field is echoed back (CC-docs).',
      'Its settings file is also read by VS Code (Local harness, matchers ignored), Cursor and Devin: the hook answers each in its own form (docs/real-programs.md, one hook, many callers).',
      'Since 2.1.295 a hook entry may say onFailure: "block", which blocks the command when the hook cannot start, times out or exits oddly (release notes): sparehand never writes it, and agent test and doctor warn where the user set it.',
      'Mods (2.1.287 and later): a plugin in ~/.claude/skills/<name>/ with a hooks module loads as <name>@skills-dir, under claude -p with no flag and no question, interactively once the folder is trusted; `allowManagedModsOnly` in managed settings keeps it out ("mods are limited to your organization\'s by policy"); Claude Code reads the module before it loads it ($ spelled $.noun.event(...) where it is called, $.env.get with a literal name); the Bash event is flat (e.command), the permission check (tool.check) judges the rewritten command, its next() refuses a changed input, and $.tool.check gives Claude Code\'s verdict on the original (2.1.332, docs/agents.md "Claude Code\'s mod").',
      "A mod's every call of $ is a hop to Claude Code's main thread (0.35–1.1 ms each in 2.1.332, ten at once 3.5–6 ms): the mod reads the environment once a session, and what the hook read last time all at once (docs/agents.md \"Claude Code's mod\").",
    ],
    // The hook events of the vendored settings schema (SchemaStore, 2026-08-03). Not PreSkillShellCommand: it came in
    // 2.1.332, and a settings file naming it opens a dialog at start-up in 2.1.331 and older.
    hookEvents: [
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'PermissionRequest',
      'Notification',
      'UserPromptSubmit',
      'Stop',
      'StopFailure',
      'SubagentStart',
      'SubagentStop',
      'PreCompact',
      'PostCompact',
      'Elicitation',
      'ElicitationResult',
      'TeammateIdle',
      'TaskCompleted',
      'Setup',
      'InstructionsLoaded',
      'CwdChanged',
      'FileChanged',
      'ConfigChange',
      'WorktreeCreate',
      'WorktreeRemove',
      'SessionStart',
      'SessionEnd',
      'PostToolBatch',
      'TaskCreated',
      'PermissionDenied',
      'UserPromptExpansion',
      'MessageDisplay',
      'DirectoryAdded',
    ],
  },
  program: {
    binary: { name: 'claude', versionArgs: ['--version'] },
    folders: (b) => [inHome('.claude')(b)],
  },
  shellTools: ['Bash'],
  sparehandName: 'absolute',
  maxTimeoutMs: 600_000,
  defaultTimeoutMs: 120_000,
  payload,
  // The shape several tools copy: the hook tries it after every other tool's (the most specific shape wins).
  fallback: true,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && typeof raw.session_id === 'string',
  read: (p) => ({
    tool: p.tool_name,
    command: p.tool_input.command,
    cwd: p.cwd,
    timeoutMs: numField(p.tool_input, 'timeout'),
    sessionId: p.session_id,
    permissionMode: p.permission_mode,
    background: p.tool_input.run_in_background === true,
  }),
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never, 'timeout')),
  approval: claudeApproval,
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    session_id: '3f1c2b7a-9d0e-4c55-8a61-2f0d7e9b1c44',
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'sparehand agent test' },
    tool_use_id: 'toolu_sparehand_test',
  }),
  /** In the project besides what install writes: its instructions and MCP servers, read from the project (docs: memory, mcp). */
  projectSettings: ['CLAUDE.md', 'CLAUDE.local.md', '.mcp.json'],
  // Seen in @anthropic-ai/claude-code 2.1.332 with bubblewrap 0.11 and socat on Linux, 2026-12-01
  // (test/e2e/agents/claude-code-sandbox.test.ts): a sandboxed command has SANDBOX_RUNTIME=1, no network interface
  // but loopback, HTTP(S)_PROXY/ALL_PROXY to the runtime's proxy (403 "blocked-by-allowlist" for a host not in
  // sandbox.network.allowedDomains), seccomp refusing unix sockets, HOME and /tmp read-only, $TMPDIR its own.
  sandbox: {
    name: "Claude Code's sandbox",
    onByDefault: false,
    checked: 'real program',
    agentEnv: [{ name: 'CLAUDECODE', value: '1' }],
    insideEnv: [{ name: 'SANDBOX_RUNTIME', value: '1', network: 'proxy' }],
    // Refused inside the project even so: seen in 2.1.332 (a write to each, 2026-12-01); the docs name the settings
    // files (code.claude.com/docs/en/sandboxing). `.git/HEAD`, `.git/objects` and a nested repo's `.git` were writable.
    readOnlyInProject: [
      '.claude/settings.json',
      '.claude/settings.local.json',
      '.git/config',
      '.git/hooks',
      '.gitmodules',
      '.mcp.json',
      '.vscode',
      '.idea',
      '.bashrc',
    ],
    settings: {
      format: 'json',
      file: inHome('.claude', 'settings.json'),
      projectFiles: [inProject('.claude', 'settings.json'), inProject('.claude', 'settings.local.json')],
      switch: { key: ['sandbox', 'enabled'], off: [false] },
      writable: { key: ['sandbox', 'filesystem', 'allowWrite'] },
      hosts: { key: ['sandbox', 'network', 'allowedDomains'], withPort: true },
    },
  },
  install: {
    targets: [target('user', inHome('.claude', 'settings.json')), target('project', inProject('.claude', 'settings.json'))],
    afterInstall: [],
    // Where the Claude Code here can load a mod (2.1.287 and later, not kept off by its settings): the hook runs inside
    // Claude Code, and no process starts for a call (claude-mod.ts).
    inProcess: claudeMod,
  },
};
