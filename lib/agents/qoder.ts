// Qoder CLI. Sources: docs.qoder.com/en/cli/hooks (search excerpts of three revisions), read 2026-12-03; the bundle of
// @qoder-ai/qodercli 1.1.52 (npm, read 2026-12-03: firePreToolUseEvent, the PreToolUse output class, the call that
// rebuilds the tool from updatedInput before the permission check, the Bash tool's schema, the hook runner's
// environment); the real program @qoder-ai/qodercli@1.1.52 driven offline with its own --fake-responses, 2026-12-03
// (docs/real-programs.md: its model service is Qoder's own, which no fake model stands in for).
import { isAbsolute, join } from 'node:path';
import * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inProject, numField, once, preToolUsePayload, rewrittenInput, strField } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() => preToolUsePayload({ session_id: p.string(), permission_mode: p.optional(p.string()) }));
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$QODER_CONFIG_DIR`, default `~/.qoder` (its README, "配置目录环境变量"). */
const qoderHome = (b: InstallBase): string => b.env.QODER_CONFIG_DIR || join(b.home, '.qoder');

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  // Its settings are read with comments stripped (the bundle's settings loader), as Gemini CLI's, which it forks.
  claudeStyleTarget({ agent: 'qoder', scope, path, arrayPath: ['hooks', 'PreToolUse'], matcher: 'Bash', timeout: 10, comments: true });

/** The Bash tool's own folder (`dir_path`, relative to the project root), else the payload's. */
function folderOf(p: Payload): string | undefined {
  const dir = strField(p.tool_input, 'dir_path');
  if (dir === undefined || isAbsolute(dir)) return dir ?? p.cwd;
  return p.cwd === undefined ? undefined : join(p.cwd, dir);
}

export const qoder: AgentSpec<Payload> = {
  id: 'qoder',
  name: 'Qoder CLI',
  connection: 'rewrite',
  why: 'Its PreToolUse hook is Claude-compatible: updatedInput for the Bash tool rebuilds the call from the new input before Qoder checks its permissions.',
  facts: {
    sources: [
      { title: 'Qoder CLI hooks', url: 'https://docs.qoder.com/en/cli/hooks', read: '2026-12-03' },
      { title: 'Qoder CLI 1.1.52 (npm @qoder-ai/qodercli, bundle/qodercli.js)', url: 'https://www.npmjs.com/package/@qoder-ai/qodercli', read: '2026-12-03' },
    ],
    confirmed: [
      {
        package: '@qoder-ai/qodercli',
        version: '1.1.52',
        date: '2026-12-03',
        how: "qodercli -p --yolo with its own --fake-responses in place of a model (its model service is Qoder's own) and security.auth.useExternal; updatedInput honoured, the rewritten npm test ran on a real sshd worker; through sparehand agent install by test/e2e/agents/qoder.test.ts",
      },
    ],
    documented: 'docs.qoder.com (2026-12-03); @qoder-ai/qodercli 1.1.52 bundle',
    failMode:
      'Exit 2 blocks, with stderr as the reason; any other exit status, a hook that cannot start and a timeout (600 s by default) are non-blocking errors and the call goes on (docs; the bundle logs them as "Non-blocking hook error(s)").',
    quirks: [
      'updatedInput replaces the tool input whole: the call is built again from it and validated ("Tool parameter modification by hook failed validation" otherwise), so every field is sent back (bundle of 1.1.52).',
      'Permission rules are checked against the rewritten command, after the hook (bundle of 1.1.52: checkPermission reads the modified args).',
      "Its payload is Claude Code's shape field for field (session_id, transcript_path, cwd, hook_event_name, permission_mode, tool_use_id, tool_name, tool_input): the hook tells the two apart by which of sparehand's entries was called.",
      'The hook runs with QODER_PROJECT_DIR and CLAUDE_PROJECT_DIR set to the project root (bundle of 1.1.52).',
      "The Bash tool's input is {command, description, dir_path, run_in_background, timeout (ms, at most 600000; 120000 when unset)} (bundle of 1.1.52).",
      "Its model is Qoder's own service (api2-v2.qoder.sh, after a login or a personal access token exchanged there), which no fake model stands in for: the real program was driven with its hidden --fake-responses and security.auth.useExternal instead (docs/real-programs.md).",
      'A --yolo run says permission_mode "yolo" in the payload (captured from 1.1.52), not bypassPermissions.',
    ],
    // Only the event sparehand writes is listed: its docs (above) name more, not checked here.
    hookEvents: ['PreToolUse'],
  },
  program: {
    binary: { name: 'qodercli', versionArgs: ['--version'] },
    folders: (b) => [qoderHome(b)],
  },
  shellTools: ['Bash'],
  sparehandName: 'absolute',
  maxTimeoutMs: 600_000,
  defaultTimeoutMs: 120_000,
  payload,
  // Claude Code's shape, which Qoder copies: tried after every more specific shape, the named tool first.
  fallback: true,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && typeof raw.session_id === 'string',
  read: (p) => ({
    tool: p.tool_name,
    command: p.tool_input.command,
    cwd: folderOf(p),
    timeoutMs: numField(p.tool_input, 'timeout'),
    sessionId: p.session_id,
    permissionMode: p.permission_mode,
    background: p.tool_input.run_in_background === true,
  }),
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never, 'timeout')),
  // A payload in this tool's form for `agent test` (the fields firePreToolUseEvent sends in 1.1.52).
  samplePayload: (command, cwd) => ({
    session_id: '6a0c4d8e-2f3b-4c1a-9e7d-5b8f0a1c2d3e',
    transcript_path: '/dev/null',
    cwd,
    hook_event_name: 'PreToolUse',
    permission_mode: 'default',
    tool_use_id: 'call_sparehand_test',
    tool_name: 'Bash',
    tool_input: { command, description: 'sparehand agent test' },
  }),
  install: {
    targets: [target('user', (b) => join(qoderHome(b), 'settings.json')), target('project', inProject('.qoder', 'settings.json'))],
    afterInstall: [
      // Rules are a tool name and a specifier in parentheses, `:*` a prefix (the bundle's /permissions dialog).
      'Qoder checks its permission rules against the rewritten command: unless it runs with --yolo or --dangerously-skip-permissions, allow "Bash({sparehand} run:*)" in its permissions (/permissions).',
    ],
  },
};
