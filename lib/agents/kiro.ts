// Kiro CLI. Sources: kiro.dev/docs/cli/hooks (2.x), kiro.dev/docs/cli/v3/hooks, kiro.dev/changelog/cli/3-4
// (search excerpts), read 2026-11-29. Not confirmed in the real program (no CLI on npm).
import * as p from './payload-shape.js';
import { exit2, flatTarget, inHome, inProject, isObject, looseInput, once } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    hook_event_name: p.string(/^[Pp]reToolUse$/),
    tool_name: p.string(),
    tool_input: looseInput(),
    cwd: p.optional(p.string()),
    session_id: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

// Kiro CLI 3 standalone hook file: {"version":"v1","hooks":[{name, trigger, matcher, action, timeout, enabled}]}.
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  flatTarget({
    agent: 'kiro',
    scope,
    path,
    seed: { version: 'v1' },
    arrayPath: ['hooks'],
    entry: (hook) => ({
      name: 'sparehand',
      trigger: 'PreToolUse',
      matcher: 'shell',
      action: { type: 'command', command: hook.shell },
      timeout: 30,
      enabled: true,
    }),
    commandAt: (e) => (isObject(e.action) ? e.action.command : undefined),
  });

export const kiro: AgentSpec<Payload> = {
  id: 'kiro',
  name: 'Kiro CLI',
  connection: 'redirect',
  why: 'Its documented PreToolUse answer is exit 2 with the reason on stderr, which reaches the model; the 3.4 rewrite (updatedInput) has no documented shape yet.',
  facts: {
    sources: [
      { title: 'Kiro CLI hooks', url: 'https://kiro.dev/docs/cli/hooks', read: '2026-11-29' },
      { title: 'Kiro CLI v3 hooks', url: 'https://kiro.dev/docs/cli/v3/hooks', read: '2026-11-29' },
      { title: 'Kiro CLI 3.4 changelog', url: 'https://kiro.dev/changelog/cli/3-4', read: '2026-11-29' },
    ],
    confirmed: [],
    documented: 'Kiro CLI 3.4.0',
    failMode: 'Exit 2 blocks and its stderr goes to the model; other exit statuses are warnings (kiro.dev/docs/cli/hooks).',
    quirks: [
      'Exit 2 blocks and its stderr goes to the model; other exit statuses are warnings (kiro.dev/docs/cli/hooks).',
      "The IDE's hooks get no stdin payload for preToolUse, so only the CLI can be redirected (Kiro issue #7408, third party).",
      'Without a session id in the payload, "let the same command through after one refusal" is kept per working folder.',
    ],
  },
  program: {
    binary: { name: 'kiro-cli', versionArgs: ['--version'] },
    folders: (b) => [inHome('.kiro')(b)],
  },
  shellTools: ['execute_bash', 'shell'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) =>
    typeof raw.hook_event_name === 'string' &&
    /^[Pp]reToolUse$/.test(raw.hook_event_name) &&
    typeof raw.tool_name === 'string' &&
    ['execute_bash', 'shell'].includes(raw.tool_name),
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id }),
  encode: (answer) => (answer.kind === 'refuse' ? exit2(answer.reason) : { stdout: '', stderr: '', exitCode: 0 }),
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    hook_event_name: 'preToolUse',
    cwd,
    tool_name: 'execute_bash',
    tool_input: { command, summary: 'sparehand agent test' },
  }),
  install: {
    targets: [target('user', inHome('.kiro', 'hooks', 'sparehand.json')), target('project', inProject('.kiro', 'hooks', 'sparehand.json'))],
    notes: [
      { scope: 'user', path: inHome('.kiro', 'steering', 'sparehand.md') },
      { scope: 'project', path: inProject('.kiro', 'steering', 'sparehand.md') },
    ],
    afterInstall: [],
  },
};
