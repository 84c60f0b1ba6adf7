// Auggie (Augment's CLI). Sources: docs.augmentcode.com/cli/hooks (and the 0.x page /cli/v0/hooks), read 2026-12-01;
// its bundle (@augmentcode/auggie@0.36.0: the PreToolUse answer schema, `u = f.updatedInput`, hook command parsing),
// read 2026-12-01; the real program driven offline against a fake of Augment's API, 2026-12-01
// (docs/real-programs.md, "More tools").
import * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inHome, inProject, looseInput, numField, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, HookAnswer, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    hook_event_name: p.literal('PreToolUse'),
    tool_name: p.string(),
    tool_input: looseInput(),
    conversation_id: p.optional(p.string()),
    workspace_roots: p.optional(p.array(p.string())),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({
    agent: 'auggie',
    scope,
    path,
    arrayPath: ['hooks', 'PreToolUse'],
    // A regex on the tool name (`Bash` matches nothing).
    matcher: '^launch-process$',
    timeout: 10_000, // milliseconds in Auggie
  });

/** The whole input with the new command and, when raised, `max_wait_seconds` (Auggie replaces the input whole). */
function updatedInput(p: Payload, answer: Extract<HookAnswer, { kind: 'rewrite' }>): Record<string, unknown> {
  const out = rewrittenInput(p.tool_input, answer);
  if (answer.timeoutMs !== undefined && 'max_wait_seconds' in p.tool_input) out.max_wait_seconds = Math.round(answer.timeoutMs / 1000);
  return out;
}

export const auggie: AgentSpec<Payload> = {
  id: 'auggie',
  name: 'Auggie (Augment CLI)',
  connection: 'rewrite',
  why: "Its PreToolUse hook can return updatedInput (Claude's form), which replaces the launch-process tool's whole input.",
  facts: {
    sources: [
      { title: 'Auggie hooks', url: 'https://docs.augmentcode.com/cli/hooks', read: '2026-12-01' },
      { title: 'Auggie 0.x hooks', url: 'https://docs.augmentcode.com/cli/v0/hooks', read: '2026-12-01' },
    ],
    confirmed: [
      {
        package: '@augmentcode/auggie',
        version: '0.36.0',
        date: '2026-12-01',
        how: "auggie --print against a fake of Augment's API (get-models with enable_hooks, chat-stream) on 127.0.0.1; updatedInput honoured, deny honoured; re-checked through sparehand agent install by test/e2e/agents/auggie.test.ts",
      },
      {
        package: '@augmentcode/auggie',
        version: '0.36.0',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/auggie.test.ts)',
      },
    ],
    documented: 'docs.augmentcode.com (1.x and 0.x pages, 2026-12-01)',
    failMode:
      "Fails open: a hook that fails to start, times out or prints nothing lets the call go on; exit 2 blocks with stderr as the reason (docs; the bundle's hook executor).",
    quirks: [
      'updatedInput replaces the whole input: a bare {command} drops `wait` and the command goes to the background, so every field is sent back (docs/real-programs.md, "More tools").',
      'Commands run in a login shell (bash -l -c) that resets PATH, so the rewrite names sparehand by absolute path (docs/real-programs.md, "More tools").',
      "Hooks run only when Augment's backend enables them for the account (feature flag enable_hooks); the hook's environment carries the user's access token in AUGMENT_SESSION_AUTH (docs/real-programs.md, \"More tools\").",
      'The hook timeout is in milliseconds; the matcher is a regex on the tool name (docs; docs/real-programs.md, "More tools").',
      'Permissions are checked against the rewritten command, and a hook\'s "allow" does not override the user\'s ask rule (docs/real-programs.md, "More tools").',
    ],
    // Only the event sparehand writes is listed: its docs (above) name more, not checked here.
    hookEvents: ['PreToolUse'],
  },
  program: {
    binary: { name: 'auggie', versionArgs: ['--version'] },
    folders: (b) => [inHome('.augment')(b)],
  },
  shellTools: ['launch-process'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && raw.tool_name === 'launch-process',
  read: (p) => {
    const wait = numField(p.tool_input, 'max_wait_seconds');
    return {
      tool: p.tool_name,
      command: p.tool_input.command,
      cwd: p.workspace_roots?.[0],
      ...(wait === undefined ? {} : { timeoutMs: wait * 1000 }),
      sessionId: p.conversation_id,
    };
  },
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => updatedInput(p, answer as Extract<HookAnswer, { kind: 'rewrite' }>)),
  // A payload in this tool's form for `agent test` (shaped like the captured payload).
  samplePayload: (command, cwd) => ({
    hook_event_name: 'PreToolUse',
    conversation_id: 'e8742f7d-1566-4654-b5ba-e27c2cb3f680',
    workspace_roots: [cwd],
    tool_name: 'launch-process',
    tool_input: { command, wait: true, max_wait_seconds: 300, cwd: '.' },
    tool_output: '[undefined]',
    tool_error: null,
    is_mcp_tool: false,
  }),
  install: {
    targets: [target('user', inHome('.augment', 'settings.json')), target('project', inProject('.augment', 'settings.json'))],
    notes: [
      { scope: 'user', path: inHome('.augment', 'rules', 'sparehand.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'Auggie checks its tool permissions against the rewritten command: if it asks before launch-process, add {"toolName":"launch-process","shellInputRegex":"^{sparehand} run ","permission":{"type":"allow"}} to toolPermissions of ~/.augment/settings.json.',
    ],
  },
};
