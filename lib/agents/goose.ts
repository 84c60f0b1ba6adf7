// goose. Sources: aaif-goose/goose (formerly block/goose) documentation/docs/guides/context-engineering/hooks.md and
// plugins.md, crates/goose/src/hooks/mod.rs (emit_blocking_with_outcome, classify_output, load_hooks_file, on_failure)
// and crates/goose/src/plugins/formats/open_plugins.rs, read 2026-12-03; the Open Plugins hooks specification those
// follow. Not confirmed in the real program: a Rust binary, on neither npm nor Debian.
import * as p from './payload-shape.js';
import { claudeStyleTarget, inConfigHome, inHome, inProject, json, looseInput, once } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    event: p.literal('PreToolUse'),
    session_id: p.optional(p.string()),
    matcher_context: p.optional(p.string()),
    tool_call_id: p.optional(p.string()),
    tool_name: p.string(),
    tool_input: looseInput(),
    working_dir: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

// A plugin of sparehand's own (`sparehand`, named by its folder: the manifest is optional), whose hooks/hooks.json holds
// the rule. The matcher is a regular expression on the tool name: a bare `*` is no regular expression, and the rule is
// skipped with a line in goose's log only (load_hooks_file). on_failure: "block" would deny the call whenever the hook
// fails: never written; `agent test` warns where the user set it.
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) => ({
  ...claudeStyleTarget({ agent: 'goose', scope, path, arrayPath: ['hooks', 'PreToolUse'], matcher: '^developer__shell$', timeout: 10 }),
  failClosed: { key: 'on_failure', value: 'block', source: 'goose hooks (crates/goose/src/hooks/mod.rs)' },
});

export const goose: AgentSpec<Payload> = {
  id: 'goose',
  name: 'goose',
  connection: 'redirect',
  why: 'Its PreToolUse hook (the Open Plugins hooks of a plugin) can allow or block a call and cannot change it, so the hook refuses once and names the replacement.',
  facts: {
    sources: [
      {
        title: 'goose hooks (documentation/docs/guides/context-engineering/hooks.md)',
        url: 'https://github.com/aaif-goose/goose/blob/main/documentation/docs/guides/context-engineering/hooks.md',
        read: '2026-12-03',
      },
      {
        title: 'goose hooks source (crates/goose/src/hooks/mod.rs)',
        url: 'https://github.com/aaif-goose/goose/blob/main/crates/goose/src/hooks/mod.rs',
        read: '2026-12-03',
      },
      { title: 'Open Plugins hooks specification', url: 'https://open-plugins.com/agent-builders/components/hooks', read: '2026-12-03' },
    ],
    confirmed: [],
    documented: 'aaif-goose/goose main (hooks.md, crates/goose/src/hooks/mod.rs)',
    failMode:
      'Fails open unless the action says on_failure: "block": a hook that cannot start, times out (30 s by default), exits with another status than 0 or 2, or prints anything but nothing, {"decision":"allow"} or {"decision":"block"} lets the call go on (crates/goose/src/hooks/mod.rs).',
    quirks: [
      'A block reaches the model as "Tool call denied by policy hook `sparehand`: <reason>. Do not retry; this is a policy denial, not a transient failure." (crates/goose/src/hooks/mod.rs): the reason names the command to run instead.',
      'A bare "*" matcher is no regular expression: the rule is skipped, with a line in the log only (load_hooks_file).',
      'Exit 0 with anything on stdout but nothing or a decision is a hook failure, and a hook that did not take its payload on stdin cannot allow (classify_run).',
      "Plugins are found in ~/.agents/plugins/<name>/ and <project>/.agents/plugins/<name>/, a folder any Open Plugins host may read too; one named in disabledPlugins of goose's settings.json is skipped (hooks.md).",
      'The payload names the event `event` and carries matcher_context, tool_call_id and working_dir (HookContext).',
    ],
    hookEvents: [
      'PreToolUse',
      'PreToolUseResult',
      'PostToolUse',
      'PostToolUseFailure',
      'SessionStart',
      'SessionEnd',
      'UserPromptSubmit',
      'BeforeReadFile',
      'AfterFileEdit',
      'BeforeShellExecution',
      'AfterShellExecution',
      'Stop',
    ],
  },
  program: {
    binary: { name: 'goose', versionArgs: ['--version'] },
    folders: (b) => [inConfigHome('goose')(b)],
  },
  shellTools: ['developer__shell'],
  // Its shell tool runs bash -c with the PATH of the user's login shell (developer/shell.rs): an absolute path works.
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.event === 'PreToolUse' && typeof raw.tool_name === 'string' && typeof raw.matcher_context === 'string',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.working_dir, sessionId: p.session_id }),
  encode: (answer) => (answer.kind === 'refuse' ? json({ decision: 'block', reason: answer.reason }) : { stdout: '', stderr: '', exitCode: 0 }),
  // A payload in this tool's form for `agent test` (HookContext of a tool event, as goose serializes it).
  samplePayload: (command, cwd) => ({
    event: 'PreToolUse',
    session_id: 'goose-sparehand-test',
    matcher_context: 'developer__shell',
    tool_call_id: 'call_sparehand_test',
    tool_name: 'developer__shell',
    tool_input: { command },
    working_dir: cwd,
  }),
  install: {
    targets: [
      target('user', inHome('.agents', 'plugins', 'sparehand', 'hooks', 'hooks.json')),
      target('project', inProject('.agents', 'plugins', 'sparehand', 'hooks', 'hooks.json')),
    ],
    notes: [
      { scope: 'user', path: inConfigHome('goose', '.goosehints') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'The plugin is in ~/.agents/plugins/sparehand, which an Open Plugins host other than goose may load too: its rule matches only the tool named developer__shell.',
    ],
  },
};
