// Mistral Vibe. Sources: docs.mistral.ai/vibe/code/cli/hooks (via rtk PR #3391, merged 2026-08-06, which installs a
// `pre_tool` hook from it), mistralai/mistral-vibe vibe/core/hooks/ (models.py, config.py) and vibe/core/agent_loop.py
// (2.18.4, commit ac8f1a09, 2026-07-01), read 2026-12-01. Not confirmed in the real program (documentation only: a
// Python program, not on npm).
import { join } from 'node:path';
import * as p from './payload-shape.js';
import { inProject, json, looseInput, once, rewrittenInput, tomlHooksTarget } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    hook_event_name: p.string(/^(pre_tool|before_tool)$/),
    tool_name: p.string(),
    tool_input: looseInput(),
    tool_call_id: p.optional(p.string()),
    session_id: p.optional(p.string()),
    cwd: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$VIBE_HOME`, default `~/.vibe`. */
const vibeHome = (b: InstallBase): string => b.env.VIBE_HOME || join(b.home, '.vibe');

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  tomlHooksTarget({
    agent: 'vibe',
    scope,
    path,
    // strict = false: a failing hook lets the call through.
    entry: (hook) => ({ name: 'sparehand', type: 'pre_tool', match: 'bash', command: hook.shell, timeout: 10, strict: false }),
  });

export const vibe: AgentSpec<Payload> = {
  id: 'vibe',
  name: 'Mistral Vibe',
  connection: 'rewrite',
  why: "Its pre_tool hook can return hook_specific_output.tool_input, which replaces the bash tool's arguments before the permission check.",
  facts: {
    sources: [
      { title: 'Mistral Vibe hooks', url: 'https://docs.mistral.ai/vibe/code/cli/hooks', read: '2026-12-01' },
      { title: 'rtk PR #3391: pre_tool rewrite for Mistral Vibe', url: 'https://github.com/rtk-ai/rtk/pull/3391', read: '2026-12-01' },
      {
        title: 'mistral-vibe vibe/core/hooks/models.py (2.18.4)',
        url: 'https://github.com/mistralai/mistral-vibe/blob/main/vibe/core/hooks/models.py',
        read: '2026-12-01',
      },
    ],
    confirmed: [],
    documented: 'docs.mistral.ai hooks page (via rtk PR #3391); mistral-vibe 2.18.4 source',
    failMode:
      'Fails open unless the hook is strict: a crash, a timeout, a non-zero exit or output that is not JSON lets the call go on (the hook executor; the installed table has strict = false).',
    quirks: [
      'Documentation only: the program was not run here.',
      'Hooks run only with enable_experimental_hooks = true in config.toml (2.15 to 2.18; vibe/core/hooks/config.py).',
      'Versions up to 2.18 call the event before_tool (hooks.toml type = "before_tool"); the current docs say pre_tool, which sparehand installs: the hook reads both payloads.',
      'Project hooks (.vibe/hooks.toml) load only in trusted folders; hook names must be unique across files (vibe/core/hooks/config.py).',
      'The hook runs before the permission check, which sees the rewritten command (vibe/core/agent_loop.py).',
    ],
  },
  program: {
    binary: { name: 'vibe', versionArgs: ['--version'] },
    folders: (b) => [vibeHome(b)],
  },
  shellTools: ['bash'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'pre_tool' || raw.hook_event_name === 'before_tool',
  // Newer versions may qualify the tool's name (`file_system.bash`): its last part is the tool.
  read: (p) => ({ tool: p.tool_name.split('.').at(-1) ?? p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id }),
  encode: (answer, p) =>
    answer.kind === 'refuse'
      ? json({ decision: 'deny', reason: answer.reason })
      : json({ hook_specific_output: { tool_input: rewrittenInput(p.tool_input, answer) } }),
  // A payload in this tool's form for `agent test` (the documented stdin payload).
  samplePayload: (command, cwd) => ({
    session_id: 'vibe-sparehand-test',
    transcript_path: '/dev/null',
    cwd,
    hook_event_name: 'pre_tool',
    tool_name: 'bash',
    tool_call_id: 'call_sparehand_test',
    tool_input: { command },
  }),
  install: {
    targets: [target('user', (b) => join(vibeHome(b), 'hooks.toml')), target('project', inProject('.vibe', 'hooks.toml'))],
    notes: [
      { scope: 'user', path: (b) => join(vibeHome(b), 'AGENTS.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'Vibe runs hooks only with enable_experimental_hooks = true in ~/.vibe/config.toml (2.15 to 2.18).',
      'Vibe checks its bash permissions against the rewritten command: if it asks before bash commands, add "{sparehand} run" to allowlist in [tools.bash] of ~/.vibe/config.toml.',
    ],
  },
};
