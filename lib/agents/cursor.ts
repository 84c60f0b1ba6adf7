// Cursor (agent in the IDE and cursor-agent). No primary source in the stored corpora: the survey of
// 2026-11-10 and third-party adapters (rtk hooks/cursor, agent-hooks-bridge, prisma-airs-cursor-hooks),
// read 2026-11-29. Not confirmed in the real program (no CLI on npm).
import * as p from './payload-shape.js';
import { answeringShell, flatTarget, inHome, inProject, json, looseInput, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    conversation_id: p.string(),
    hook_event_name: p.optional(p.string()),
    tool_name: p.string(),
    tool_input: looseInput(),
    cwd: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

// "Cursor requires JSON output for all code paths" (rtk's Cursor hook, third party).
const LEAVE = '{}\n';

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  flatTarget({
    agent: 'cursor',
    scope,
    path,
    seed: { version: 1 },
    arrayPath: ['hooks', 'preToolUse'],
    // No timeout: its unit is contested (seconds per the survey, milliseconds per a third party). The command prints
    // {} even when sparehand is gone or fails: invalid JSON blocks the call.
    entry: (hook) => ({ command: answeringShell(hook, LEAVE), matcher: 'Shell' }),
    commandAt: (e) => e.command,
  });

export const cursor: AgentSpec<Payload> = {
  id: 'cursor',
  name: 'Cursor',
  connection: 'rewrite',
  why: 'Its preToolUse hook can return updated_input for the Shell tool (per the survey and third-party adapters; not verified in a primary source).',
  facts: {
    sources: [{ title: 'Cursor hooks (survey of 2026-11-10; third-party adapters)', url: 'https://cursor.com/docs/agent/hooks', read: '2026-11-29' }],
    confirmed: [],
    documented: 'survey 2026-11-10 (cursor_version 3.16.17 in the sample payload)',
    failMode: 'A failure or a timeout lets the call through; invalid JSON on stdout blocks it (survey), so the hook prints {} when it leaves a command alone.',
    quirks: [
      'Wire format from the survey and third-party adapters only; read cursor.com/docs/agent/hooks before relying on it.',
      'Invalid JSON on stdout blocks the call (survey): the hook prints {} when it leaves a command alone.',
    ],
    // cursor.com/docs/hooks (third-party quotes, 2026-09); one name it does not know voids the whole file, the user's
    // hooks included (mulmoterminal issue #2064, measured on cursor-agent 2026.09.10).
    hookEvents: [
      'sessionStart',
      'sessionEnd',
      'beforeSubmitPrompt',
      'preToolUse',
      'postToolUse',
      'postToolUseFailure',
      'subagentStart',
      'subagentStop',
      'beforeShellExecution',
      'afterShellExecution',
      'beforeMCPExecution',
      'afterMCPExecution',
      'beforeReadFile',
      'afterFileEdit',
      'preCompact',
      'stop',
      'afterAgentResponse',
      'afterAgentThought',
    ],
  },
  program: {
    binary: { name: 'cursor-agent', versionArgs: ['--version'] },
    folders: (b) => [inHome('.cursor')(b)],
  },
  shellTools: ['Shell'],
  sparehandName: 'absolute',
  payload,
  // Its own fields: a conversation and a generation (or its version); a conversation_id alone is not Cursor's.
  recognise: (raw) => typeof raw.cursor_version === 'string' || (typeof raw.conversation_id === 'string' && typeof raw.generation_id === 'string'),
  read: (p) => ({
    tool: p.tool_name,
    command: p.tool_input.command,
    // working_directory is not in the schema (the payload's own folder is): only a string is taken for a folder.
    cwd: typeof p.tool_input.working_directory === 'string' ? p.tool_input.working_directory : p.cwd,
    sessionId: p.conversation_id,
  }),
  encode: (answer, p) =>
    answer.kind === 'refuse'
      ? json({ permission: 'deny', user_message: 'Heavy command redirected to sparehand.', agent_message: answer.reason })
      : json({ ...(answer.approve ? { permission: 'allow' } : {}), updated_input: rewrittenInput(p.tool_input, answer) }),
  leaveStdout: LEAVE,
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    conversation_id: 'c8a1f3d2-1b2c-4d5e-8f90-a1b2c3d4e5f6',
    generation_id: 'g-sparehand',
    hook_event_name: 'preToolUse',
    workspace_roots: [cwd],
    tool_name: 'Shell',
    tool_input: { command, working_directory: cwd },
    cwd,
  }),
  /** In the project besides what install writes: the older rules file Cursor still reads. */
  projectSettings: ['.cursorrules'],
  // From the documentation only (cursor.com/docs/agent/tools/terminal, /docs/reference/sandbox and the run-modes
  // page, read 2026-12-01): on by default; CURSOR_SANDBOX (seatbelt | native) inside; workspace and temp folders
  // writable; network blocked unless sandbox.json's networkPolicy allows it (private ranges blocked by default).
  sandbox: {
    name: "Cursor's sandbox",
    onByDefault: true,
    checked: 'documentation',
    agentEnv: [],
    insideEnv: [{ name: 'CURSOR_SANDBOX', network: 'unknown' }],
    // "Always write-protected" in the sandbox reference (`*` within one name).
    readOnlyInProject: ['.cursor/*.json', '.vscode', '.git/hooks', '.git/config', '.cursorignore'],
    settings: {
      format: 'json',
      file: inHome('.cursor', 'sandbox.json'),
      projectFiles: [inProject('.cursor', 'sandbox.json')],
      switch: { key: ['type'], off: ['insecure_none'] },
      writable: { key: ['additionalReadwritePaths'] },
      hosts: { key: ['networkPolicy', 'allow'], withPort: false },
      alwaysWritable: ['/tmp', '$TMPDIR'],
    },
  },
  install: {
    targets: [target('user', inHome('.cursor', 'hooks.json')), target('project', inProject('.cursor', 'hooks.json'))],
    afterInstall: [],
  },
};
