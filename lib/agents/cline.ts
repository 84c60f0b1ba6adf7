// Cline (CLI 3 and the VS Code extension). Sources: docs.cline.bot/customization/hooks and
// /features/hooks/hook-reference (search excerpts), cline sdk/examples/hooks/README.md (3.83.0), read
// 2026-11-29. Real program: cline@3.0.65 driven offline, 2026-11-29 (docs/real-programs.md, fact 8).
import * as p from './payload-shape.js';
import { guardedShell, inHome, inProject, json, once } from './shapes.js';
import type { AgentSpec, InstallBase, OwnFileTarget } from './types.js';

// The CLI's payload: the call is both tool_call.input.commands and a JSON string in preToolUse.parameters.
const payload = once(() =>
  p.looseObject({
    taskId: p.optional(p.string()),
    workspaceRoots: p.optional(p.array(p.string())),
    tool_call: p.looseObject({ name: p.string(), input: p.looseObject({ commands: p.array(p.string()) }) }),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

const MARK = '# sparehand hook';
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string): OwnFileTarget => ({
  kind: 'file',
  scope,
  path,
  mode: 0o755,
  content: (hook) => `#!/bin/sh\n${MARK}: written by \`sparehand agent install cline\`; exits 0 silently when sparehand is gone.\n${guardedShell(hook)}\n`,
  commandOf: (text) => (text.includes(MARK) ? /^(?:test -f |sh -c ).*$/m.exec(text)?.[0] : undefined),
});

export const cline: AgentSpec<Payload> = {
  id: 'cline',
  name: 'Cline',
  connection: 'rewrite',
  why: 'Its CLI honours {"overrideInput":{"commands":[…]}} from a PreToolUse hook on run_commands (seen in the real program; not in the docs).',
  facts: {
    sources: [
      { title: 'Cline hooks', url: 'https://docs.cline.bot/customization/hooks', read: '2026-11-29' },
      { title: 'Cline hook reference', url: 'https://docs.cline.bot/features/hooks/hook-reference', read: '2026-11-29' },
    ],
    confirmed: [
      {
        package: 'cline',
        version: '3.0.65',
        date: '2026-11-29',
        how: 'cline --auto-approve against a fake chat-completions server on 127.0.0.1; overrideInput honoured; re-checked through sparehand agent install by test/e2e/agents/cline.test.ts',
      },
      {
        package: 'cline',
        version: '3.0.65',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/cline.test.ts)',
      },
    ],
    documented: 'docs.cline.bot (2026-11-29); sdk 3.83.0',
    failMode: 'Not documented; the installed executable exits 0 silently when sparehand is gone.',
    quirks: [
      'Hooks are executables named after the event in ~/.cline/hooks/ (docs/real-programs.md, fact 8); the docs name ~/Documents/Cline/Hooks/.',
      'The payload has no cwd: the first workspace root is used (docs/real-programs.md, fact 8).',
      '{"cancel":true} aborts the whole task, so the hook never refuses (docs/real-programs.md).',
      'The CLI leaves a `cline --cline-hub-daemon` running after a run (docs/real-programs.md).',
    ],
  },
  program: {
    binary: { name: 'cline', versionArgs: ['--version'] },
    folders: (b) => [inHome('.cline')(b), inHome('Documents', 'Cline')(b)],
  },
  shellTools: ['run_commands'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => 'tool_call' in raw && ('hookName' in raw || 'taskId' in raw),
  // One command per call is rewritten; a call with several commands is left alone.
  read: (p) =>
    p.tool_call.input.commands.length === 1
      ? { tool: p.tool_call.name, command: p.tool_call.input.commands[0] as string, cwd: p.workspaceRoots?.[0], sessionId: p.taskId }
      : null,
  // {"cancel":true} aborts the whole task (docs/real-programs.md), so there is no refusal: rewrite only.
  encode: (answer, p) =>
    answer.kind === 'refuse' ? { stdout: '', stderr: '', exitCode: 0 } : json({ overrideInput: { ...p.tool_call.input, commands: [answer.command] } }),
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    clineVersion: '',
    timestamp: new Date(0).toISOString(),
    taskId: 'conv_sparehand_test',
    workspaceRoots: [cwd],
    hookName: 'tool_call',
    tool_call: { id: 'call_sparehand_test', name: 'run_commands', input: { commands: [command] } },
    preToolUse: { toolName: 'run_commands', parameters: { commands: JSON.stringify([command]) } },
  }),
  install: {
    targets: [target('user', inHome('.cline', 'hooks', 'PreToolUse')), target('project', inProject('.clinerules', 'hooks', 'PreToolUse'))],
    notes: [
      { scope: 'user', path: inHome('Documents', 'Cline', 'Rules', 'sparehand.md') },
      { scope: 'project', path: inProject('.clinerules', 'sparehand.md') },
    ],
    afterInstall: [],
  },
};
