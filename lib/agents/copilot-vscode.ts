// VS Code agent mode (GitHub Copilot Chat), the "Local" hooks harness. Sources: microsoft/vscode-docs
// docs/copilot/customization/hooks.md (commit 9f2e2ab6, VS Code 1.109.3, Preview) and the newer "Legacy
// Local hooks reference" excerpt on code.visualstudio.com, read 2026-11-29. Not confirmed in the real program.
import * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inConfigHome, inHome, inProject, looseInput, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    sessionId: p.string(),
    hookEventName: p.literal('PreToolUse'),
    tool_name: p.string(),
    tool_input: looseInput(),
    cwd: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

// VS Code ignores matchers (every hook gets every tool); Claude Code honours them. A matcher naming only
// VS Code's terminal tools keeps this entry out of Claude Code, which reads the same files.
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({
    agent: 'copilot-vscode',
    scope,
    path,
    arrayPath: ['hooks', 'PreToolUse'],
    matcher: 'run_in_terminal|runTerminalCommand',
    timeout: 15,
  });

export const copilotVscode: AgentSpec<Payload> = {
  id: 'copilot-vscode',
  name: 'VS Code Copilot (agent mode)',
  connection: 'rewrite',
  why: "The Local harness's PreToolUse hook can return updatedInput for the terminal tool (it is ignored when it does not match the tool's schema, so every field is sent back).",
  facts: {
    sources: [{ title: 'VS Code agent hooks (Preview)', url: 'https://code.visualstudio.com/docs/copilot/customization/hooks', read: '2026-11-29' }],
    confirmed: [],
    documented: 'VS Code 1.109.3 (docs approved 2026-02-09)',
    failMode: 'Exit 2 blocks; any other non-zero exit is a warning and the call goes on (vscode-docs hooks.md).',
    quirks: [
      'Matchers are parsed but ignored: the hook gets every tool call and leaves all but the terminal tool alone (vscode-docs hooks.md).',
      'Newer VS Code routes Copilot sessions through the Copilot CLI hook format (.github/hooks, ~/.copilot/hooks): install copilot-cli too.',
      "The terminal tool id in the docs' example is runTerminalCommand; Copilot Chat's tool is run_in_terminal: both are read.",
    ],
    // Only the event sparehand writes is listed: its docs (above) name more, not checked here.
    hookEvents: ['PreToolUse'],
  },
  program: {
    binary: { name: 'code', versionArgs: ['--version'] },
    folders: (b) => [inHome('.vscode')(b), inConfigHome('Code')(b)],
  },
  shellTools: ['run_in_terminal', 'runTerminalCommand'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hookEventName === 'PreToolUse' && typeof raw.sessionId === 'string' && 'tool_name' in raw,
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.sessionId }),
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never)),
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    timestamp: new Date(0).toISOString(),
    cwd,
    sessionId: 'vscode-sparehand-test',
    hookEventName: 'PreToolUse',
    transcript_path: '/dev/null',
    tool_name: 'run_in_terminal',
    tool_input: { command, explanation: 'sparehand agent test', isBackground: false },
    tool_use_id: 'call_sparehand_test',
  }),
  /** In the project besides what install writes: VS Code's workspace settings, tasks and MCP servers. */
  projectSettings: ['.vscode/'],
  install: {
    targets: [
      // The Local harness reads ~/.claude/settings.json (user) and the project's .claude/settings*.json.
      target('user', inHome('.claude', 'settings.json')),
      target('project', inProject('.claude', 'settings.local.json')),
    ],
    afterInstall: [
      'VS Code runs the rewritten command through its own terminal approval: approve it when asked, or add "{sparehand} run" to chat.tools.terminal.autoApprove.',
    ],
  },
};
