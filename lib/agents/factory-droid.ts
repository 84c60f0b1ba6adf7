// Factory Droid. Sources: docs.factory.ai/harness/hooks and /reference/hooks-reference (search excerpts, two
// revisions), rtk PR #2267 (third party), read 2026-11-29. Real program: droid@0.215.0 driven offline,
// 2026-11-29 (docs/real-programs.md, fact 4).
import * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inHome, inProject, once, preToolUsePayload, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() => preToolUsePayload({ tool_name: p.literal('Execute'), permission_mode: p.optional(p.string()) }));
type Payload = p.Infer<ReturnType<typeof payload>>;

// hooks.json with the event names at the top level: droid ignores the {"hooks":{…}} shape there.
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({ agent: 'factory-droid', scope, path, arrayPath: ['PreToolUse'], matcher: 'Execute', timeout: 10 });

export const factoryDroid: AgentSpec<Payload> = {
  id: 'factory-droid',
  name: 'Factory Droid',
  connection: 'rewrite',
  why: 'Its PreToolUse hook (Claude-compatible) can return updatedInput for the Execute tool.',
  facts: {
    sources: [{ title: 'Factory hooks reference', url: 'https://docs.factory.ai/reference/hooks-reference', read: '2026-11-29' }],
    confirmed: [
      {
        package: 'droid',
        version: '0.215.0',
        date: '2026-11-29',
        how: 'droid exec --auto high against a fake chat-completions server on 127.0.0.1; updatedInput honoured; re-checked through sparehand agent install by test/e2e/agents/factory-droid.test.ts',
      },
      {
        package: 'droid',
        version: '0.215.0',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/factory-droid.test.ts)',
      },
    ],
    documented: 'docs.factory.ai (two revisions)',
    failMode: 'A non-zero exit other than 2 is a non-blocking error (third-party adapters).',
    quirks: [
      'Ignores ~/.factory/hooks.json in the {"hooks":{…}} shape without a word; reads hooks.json with the events at the top level, or "hooks" in settings.json (docs/real-programs.md, fact 4).',
      'Tool input is {command, summary, riskLevelReason, riskLevel}: all kept on rewrite (captured payload).',
    ],
  },
  program: {
    binary: { name: 'droid', versionArgs: ['--version'] },
    folders: (b) => [inHome('.factory')(b)],
  },
  shellTools: ['Execute'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && raw.tool_name === 'Execute',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id, permissionMode: p.permission_mode }),
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never)),
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    session_id: 'droid-sparehand-test',
    transcript_path: '/dev/null',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Execute',
    tool_input: { command, summary: 'sparehand agent test', riskLevelReason: 'test', riskLevel: 'low' },
  }),
  // From the documentation only (docs.factory.ai/cli/configuration/sandbox, read 2026-12-01): opt-in Beta, bubblewrap
  // + seccomp or Seatbelt with the sandbox runtime's filtering proxy (its markers and semantics are Claude Code's);
  // widened by sandbox.filesystem.allowWrite and sandbox.network.allowedDomains. The page read does not name the
  // switch: sandbox.enabled is the runtime's, not confirmed.
  sandbox: {
    name: "Factory Droid's sandbox",
    onByDefault: false,
    checked: 'documentation',
    agentEnv: [],
    insideEnv: [{ name: 'SANDBOX_RUNTIME', value: '1', network: 'proxy' }],
    readOnlyInProject: [],
    settings: {
      format: 'json',
      file: inHome('.factory', 'settings.json'),
      switch: { key: ['sandbox', 'enabled'], off: [false] },
      writable: { key: ['sandbox', 'filesystem', 'allowWrite'] },
      hosts: { key: ['sandbox', 'network', 'allowedDomains'], withPort: true },
    },
  },
  install: {
    targets: [target('user', inHome('.factory', 'hooks.json')), target('project', inProject('.factory', 'hooks.json'))],
    afterInstall: [
      // Its allowlist matches the command's start, and the rewrite names sparehand by absolute path (seen in
      // droid 0.215 by test/e2e/agents/factory-droid.test.ts).
      'Droid checks its command allowlist against the rewritten command: under --auto low/medium add "{sparehand} run" to commandAllowlist in ~/.factory/settings.json.',
    ],
  },
};
