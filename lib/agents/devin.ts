// Devin CLI / Devin Local (the successor of Windsurf Cascade hooks). Sources: docs.devin.ai/cli/extensibility/hooks
// (overview, two revisions, search excerpts), read 2026-11-29; Windsurf legacy hooks via the survey of
// 2026-11-10. Not confirmed in the real program (no CLI on npm).
import * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inConfigHome, inHome, inProject, once, preToolUsePayload, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() => preToolUsePayload({ tool_name: p.literal('exec') }));
type Payload = p.Infer<ReturnType<typeof payload>>;

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string, arrayPath: readonly string[]) =>
  claudeStyleTarget({ agent: 'devin', scope, path, arrayPath, matcher: 'exec', timeout: 10 });

export const devin: AgentSpec<Payload> = {
  id: 'devin',
  name: 'Devin CLI / Devin Local / Windsurf',
  connection: 'rewrite',
  why: 'Its hooks are "Claude Code compatible": a PreToolUse hook on the exec tool can return updatedInput (survey; not verified in the real program), and a note asks the model where the hook is not honoured.',
  facts: {
    sources: [{ title: 'Devin CLI hooks', url: 'https://docs.devin.ai/cli/extensibility/hooks', read: '2026-11-29' }],
    confirmed: [],
    documented: 'docs.devin.ai (two revisions read 2026-11-29)',
    failMode: 'Only exit 2 or {"decision":"block"} blocks; other non-zero exits are logged and the call goes on (docs, newer revision).',
    quirks: [
      'Only exit 2 or {"decision":"block"} blocks; other non-zero exits are logged (newer docs revision; the older one said any non-zero exit blocks).',
      "Picks up hooks from .claude/ folders too: the claude-code hook answers Devin's payloads in this form.",
      'The user-level file (~/.config/devin/config.json) comes from the survey and is unverified.',
    ],
    // Only the event sparehand writes is listed: its docs (above) name more, not checked here.
    hookEvents: ['PreToolUse'],
  },
  program: {
    binary: { name: 'devin', versionArgs: ['--version'] },
    folders: (b) => [inConfigHome('devin')(b), inHome('.codeium', 'windsurf')(b)],
  },
  shellTools: ['exec'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && raw.tool_name === 'exec',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id }),
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never)),
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    session_id: 'devin-sparehand-test',
    transcript_path: '/dev/null',
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: 'exec',
    tool_input: { command },
  }),
  install: {
    targets: [
      // User level: the survey's `hooks` key in ~/.config/devin/config.json (unverified); project level:
      // .devin/hooks.v1.json with the events at the top level (docs).
      target('user', inConfigHome('devin', 'config.json'), ['hooks', 'PreToolUse']),
      target('project', inProject('.devin', 'hooks.v1.json'), ['PreToolUse']),
    ],
    notes: [
      { scope: 'user', path: inHome('.codeium', 'windsurf', 'memories', 'global_rules.md') },
      { scope: 'project', path: inProject('.windsurf', 'rules', 'sparehand.md') },
    ],
    afterInstall: [],
  },
};
