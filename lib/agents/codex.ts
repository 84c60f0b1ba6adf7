// OpenAI Codex CLI. Sources: openai/codex codex-rs/hooks (schema.rs, engine/output_parser.rs,
// events/pre_tool_use.rs, schema/generated/*.json), PR #20527 (2026-05-12), developers.openai.com/codex/hooks;
// read 2026-11-29. Real program: @openai/codex@0.171.0 driven offline, 2026-11-29 (docs/real-programs.md, facts 2 and 3).
import { join } from 'node:path';
import * as p from './payload-shape.js';
import { codexTrust } from './codex-trust.js';
import { claudeStyleAnswer, claudeStyleTarget, inProject, once } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    session_id: p.string(),
    turn_id: p.string(),
    hook_event_name: p.literal('PreToolUse'),
    tool_name: p.string(),
    tool_input: p.looseObject({ command: p.string() }),
    cwd: p.optional(p.string()),
    permission_mode: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$CODEX_HOME`, default `~/.codex`. */
export const codexHome = (b: InstallBase): string => b.env.CODEX_HOME || join(b.home, '.codex');

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({ agent: 'codex', scope, path, arrayPath: ['hooks', 'PreToolUse'], matcher: '^Bash$', timeout: 10 });

export const codex: AgentSpec<Payload> = {
  id: 'codex',
  name: 'Codex CLI',
  connection: 'redirect',
  why: 'Codex accepts a changed command only together with permissionDecision "allow", which would approve what the user never approved; so by default the hook refuses once and names the replacement (SPAREHAND_AGENT_CODEX=rewrite switches to rewriting).',
  facts: {
    sources: [
      {
        title: 'codex-rs/hooks output_parser.rs, pre_tool_use.rs, generated schemas',
        url: 'https://github.com/openai/codex/tree/main/codex-rs/hooks',
        read: '2026-11-29',
      },
      { title: 'PR #20527 Support PreToolUse updatedInput rewrites', url: 'https://github.com/openai/codex/pull/20527', read: '2026-11-29' },
      { title: 'Codex hooks', url: 'https://developers.openai.com/codex/hooks', read: '2026-11-29' },
    ],
    confirmed: [
      {
        package: '@openai/codex',
        version: '0.171.0',
        date: '2026-11-29',
        how: 'codex exec against a fake Responses server on 127.0.0.1; deny reason reaches the model; allow+updatedInput honoured; trust entry honoured; re-checked through sparehand agent install by test/e2e/agents/codex.test.ts',
      },
      {
        package: '@openai/codex',
        version: '0.171.0',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/codex.test.ts)',
      },
    ],
    documented: 'codex-rs hooks schema (commits bde5e187 / 6fff509b)',
    failMode:
      'Fails open: a runner error, a timeout, an exit status other than 0/2, or JSON that does not parse marks the hook Failed and the original command runs; exit 2 with an empty stderr is not a block (pre_tool_use.rs).',
    quirks: [
      'updatedInput without permissionDecision "allow" is a failed hook and the original command runs; "allow" alone is rejected too (output_parser.rs; docs/real-programs.md, fact 3).',
      'An untrusted hook is skipped silently in `codex exec` (docs/real-programs.md, fact 3).',
      'Every shell-like tool reports tool_name "Bash" with tool_input {command} only (pre_tool_use.rs).',
      'Hooks run without a [features] flag (codex-rs/hooks at rust-v0.153.3 has them on; anywhere-agents issue #50); sparehand never writes one, and of the newer events (PreCompact, PostCompact, SessionEnd, Interrupt, …) writes none.',
      'Commands run in a login shell (bash -lc) whose profile resets PATH, so the replacement names sparehand by absolute path (docs/real-programs.md, fact 2).',
    ],
    // codex-rs/hooks/src/events at rust-v0.153.3 (anywhere-agents issue #50); hooks are on by default there, no
    // [features] flag needed, and sparehand writes only PreToolUse.
    hookEvents: [
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'SessionStart',
      'SessionEnd',
      'UserPromptSubmit',
      'Stop',
      'PreCompact',
      'PostCompact',
      'Interrupt',
    ],
  },
  program: {
    binary: { name: 'codex', versionArgs: ['--version'] },
    folders: (b) => [codexHome(b)],
  },
  shellTools: ['Bash'],
  // Codex runs commands with `bash -lc`: the login profile resets PATH (docs/real-programs.md, fact 2).
  sparehandName: 'absolute',
  rewriteNeedsApproval: true,
  rewriteOptIn: true,
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && typeof raw.turn_id === 'string',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id, permissionMode: p.permission_mode }),
  // tool_input is exactly {command}: the rewrite sends exactly that (output schema: additionalProperties).
  encode: (answer) => claudeStyleAnswer('PreToolUse', answer, () => ({ command: answer.kind === 'rewrite' ? answer.command : '' })),
  samplePayload: (command, cwd) => ({
    session_id: '019a4f2e-7c1d-7b30-9e55-3c2a1d0f8b61',
    turn_id: '019a4f2e-8a02-7c11-a3d4-5b6c7d8e9f01',
    transcript_path: null,
    cwd,
    hook_event_name: 'PreToolUse',
    model: 'gpt-5.5',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'call_sparehand_test',
  }),
  /** In the project besides what install writes: skills and rules Codex reads from the project; its workspace-write sandbox keeps .codex and .agents read-only. */
  projectSettings: ['.agents/'],
  // Seen in @openai/codex 0.171.0 on Linux (Landlock + seccomp), 2026-12-01 (test/e2e/agents/codex-sandbox.test.ts):
  // a command in workspace-write has CODEX_SANDBOX_NETWORK_DISABLED=1 and no socket leaves; HOME is read-only but
  // /tmp and $TMPDIR are not; writable_roots and network_access widen it. CODEX_SANDBOX=seatbelt is macOS's (spawn.rs).
  sandbox: {
    name: "Codex's sandbox",
    onByDefault: true,
    checked: 'real program',
    agentEnv: [{ name: 'CODEX_THREAD_ID' }],
    insideEnv: [
      { name: 'CODEX_SANDBOX_NETWORK_DISABLED', value: '1', network: 'cut' },
      { name: 'CODEX_SANDBOX', value: 'seatbelt', network: 'unknown' },
    ],
    // "Protected paths" (agent-approvals-security): read-only under every writable root; seen in 0.171.0 (the whole
    // top-level .git, HEAD included; a nested repo's .git was writable), 2026-12-01.
    readOnlyInProject: ['.git', '.codex', '.agents'],
    settings: {
      format: 'toml',
      file: (b) => join(codexHome(b), 'config.toml'),
      switch: { key: ['sandbox_mode'], off: ['danger-full-access'], fixed: ['read-only'] },
      writable: { key: ['sandbox_workspace_write', 'writable_roots'] },
      network: { key: ['sandbox_workspace_write', 'network_access'] },
      alwaysWritable: ['/tmp', '$TMPDIR'],
      takesEffect: 'start Codex again',
    },
  },
  install: {
    targets: [target('user', (b) => join(codexHome(b), 'hooks.json')), target('project', inProject('.codex', 'hooks.json'))],
    notes: [
      { scope: 'user', path: (b) => join(codexHome(b), 'AGENTS.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    trust: codexTrust,
    // Trusting the hook (by hand, or --trust) is said by `agent install` from `trust` above.
    afterInstall: [],
  },
};
