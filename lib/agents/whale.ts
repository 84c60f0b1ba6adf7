// Whale (DeepSeek-Code-Whale). Sources: usewhale/Whale docs/hooks.en.md, docs/configuration.en.md and the hook runner
// internal/agent/hooks.go, stream_dispatch.go (runPreToolUseHook, the policy checked again after it),
// internal/tools/catalog_shell.go (shell_run's arguments), at commit 9f052634 (2026-06-27), read 2026-12-03. Not
// confirmed in the real program: a Go binary, on neither npm nor Debian.
import { isAbsolute, join } from 'node:path';
import * as p from './payload-shape.js';
import { inProject, json, looseInput, numField, once, rewrittenInput, strField, tomlHooksTarget } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    event: p.literal('PreToolUse'),
    tool_name: p.string(),
    tool_args: looseInput(),
    session_id: p.optional(p.string()),
    cwd: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$WHALE_HOME`, default `~/.whale` (docs/configuration.en.md). */
const whaleHome = (b: InstallBase): string => b.env.WHALE_HOME || join(b.home, '.whale');

// `match` is a regular expression on the whole tool name. A timeout blocks the call (PreToolUse is a blocking event),
// so the table gives the hook far longer than it takes; its own read of stdin gives up after 5 s.
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  tomlHooksTarget({
    agent: 'whale',
    scope,
    path,
    arrayPath: ['hooks', 'PreToolUse'],
    entry: (hook) => ({ match: 'shell_run', command: hook.shell, timeout: 30 }),
  });

/** shell_run's own folder (`cwd`, relative to the workspace root, which the payload's `cwd` is), else the payload's. */
function folderOf(p: Payload): string | undefined {
  const dir = strField(p.tool_args, 'cwd');
  if (dir === undefined || isAbsolute(dir)) return dir ?? p.cwd;
  return p.cwd === undefined ? undefined : join(p.cwd, dir);
}

export const whale: AgentSpec<Payload> = {
  id: 'whale',
  name: 'Whale',
  connection: 'rewrite',
  why: "Its PreToolUse hook can return updated_input, which replaces shell_run's arguments before Whale's permission policy is checked again.",
  facts: {
    sources: [
      { title: 'Whale hooks (docs/hooks.en.md)', url: 'https://github.com/usewhale/Whale/blob/main/docs/hooks.en.md', read: '2026-12-03' },
      {
        title: 'Whale hook runner (internal/agent/hooks.go, stream_dispatch.go)',
        url: 'https://github.com/usewhale/Whale/blob/main/internal/agent/hooks.go',
        read: '2026-12-03',
      },
    ],
    confirmed: [],
    documented: 'usewhale/Whale commit 9f052634 (2026-06-27)',
    failMode:
      'Fails closed on a timeout and on a hook that cannot start: PreToolUse is a blocking event, so either blocks the call (hooks.go: decideHookOutcome, appendHookOutcome); exit 2 blocks with stderr as the reason; another exit status is a warning and the call goes on. The table sets timeout = 30 (seconds; 600 by default).',
    quirks: [
      'updated_input replaces the tool arguments whole (applyHookUpdatedInput), so every field is sent back; the permission policy is checked again on the rewritten call (stream_dispatch.go).',
      "The payload carries the arguments as tool_args (with tool_call {ID, Name, Input}) and the workspace root as cwd; shell_run's own cwd is relative to it (hooks.go, catalog_shell.go).",
      'Project hooks in .whale/config.toml run only once trusted (/hooks trust in the TUI); .whale/config.local.toml and ~/.whale/config.toml ($WHALE_HOME) are trusted as they are (docs/hooks.en.md).',
      "shell_run's runtime limit is max_runtime_ms (30 minutes at most and by default); timeout_ms and yield_time_ms only say how long to wait for output (catalog_shell.go).",
    ],
    hookEvents: [
      'PreToolUse',
      'PermissionRequest',
      'PostToolUse',
      'PreCompact',
      'PostCompact',
      'SessionStart',
      'UserPromptSubmit',
      'SubagentStart',
      'SubagentStop',
      'Stop',
    ],
  },
  program: {
    binary: { name: 'whale', versionArgs: ['--version'] },
    folders: (b) => [whaleHome(b)],
  },
  shellTools: ['shell_run'],
  sparehandName: 'absolute',
  maxTimeoutMs: 1_800_000,
  payload,
  recognise: (raw) => raw.event === 'PreToolUse' && typeof raw.tool_name === 'string' && 'tool_args' in raw,
  read: (p) => ({
    tool: p.tool_name,
    command: p.tool_args.command,
    cwd: folderOf(p),
    timeoutMs: numField(p.tool_args, 'max_runtime_ms'),
    sessionId: p.session_id,
    background: p.tool_args.background === true,
  }),
  encode: (answer, p) =>
    answer.kind === 'refuse'
      ? json({ decision: 'block', reason: answer.reason })
      : json({ updated_input: rewrittenInput(p.tool_args, answer, 'max_runtime_ms') }),
  // A payload in this tool's form for `agent test` (NewPreToolUsePayload with the workspace root, as Whale sends it).
  samplePayload: (command, cwd) => ({
    event: 'PreToolUse',
    cwd,
    session_id: 'whale-sparehand-test',
    tool_name: 'shell_run',
    tool_args: { command },
    tool_call: { ID: 'call_sparehand_test', Name: 'shell_run', Input: JSON.stringify({ command }) },
  }),
  install: {
    targets: [target('user', (b) => join(whaleHome(b), 'config.toml')), target('project', inProject('.whale', 'config.toml'))],
    afterInstall: [
      'A project hook (.whale/config.toml) runs only once you trust it: /hooks trust in Whale.',
      'Whale checks its permission policy against the rewritten command: approve "{sparehand} run" when it asks.',
    ],
  },
};
