// Antigravity CLI (`agy`), Google's successor to Gemini CLI for individual accounts. Closed source and not on npm or in
// Debian, so never driven here. Sources, read 2026-12-01: its hook docs as third parties quote them from the binary
// (agy-customizations/docs/hooks.md: rtk PR #3959 on 1.1.27, agy issue #1053 on 1.2.7); measured behaviour in
// safe-chains src/targets/agy.rs + HARNESS-BEHAVIORS.md (1.1.2, commit 0b8d25a9), nodeterm's stdout contract (1.2.3),
// orca PR #14701, uxnan PR #245 (1.2.7), websentry-ai/setup PR #104 (1.0.5), rtk src/hooks/init/antigravity.rs.
import * as p from './payload-shape.js';
import { answeringShell, claudeStyleTarget, inHome, inProject, isObject, json, once } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

/**
 * "Leave alone": agy blocks the call on empty stdout (older builds), `{}`, an empty or malformed decision, so every
 * path answers. `ask` is the decision that defers to the user's own permission rules (orca PR #14701; measured on
 * 1.2.3 by nodeterm); `allow` would approve what the user did not (nodeterm, 1.2.3; the bundled docs:
 * "Automatically allow the tool execution").
 */
const LEAVE = '{"decision":"ask"}\n';

const payload = once(() =>
  p.looseObject({
    conversationId: p.optional(p.string()),
    toolCall: p.looseObject({ name: p.string(), args: p.looseObject({ CommandLine: p.string() }) }),
    workspacePaths: p.optional(p.array(p.string())),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

/** The command line, once more decoded where it came as a JSON string literal (AgentsAssemble's agy hook saw that). */
function commandLine(value: string): string {
  if (!(value.length > 1 && value.startsWith('"') && value.endsWith('"'))) return value;
  try {
    const decoded: unknown = JSON.parse(value);
    return typeof decoded === 'string' ? decoded : value;
  } catch {
    return value;
  }
}

// A named bundle of sparehand's own in hooks.json, beside the user's bundles: `{"sparehand": {"PreToolUse": […]}}`.
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({
    agent: 'antigravity',
    scope,
    path,
    arrayPath: ['sparehand', 'PreToolUse'],
    matcher: 'run_command',
    timeout: 10, // seconds (agy issue #1053 used 15; rtk 10)
    // The installed command answers even when sparehand is gone or fails.
    command: (hook) => answeringShell(hook, LEAVE),
  });

export const antigravity: AgentSpec<Payload> = {
  id: 'antigravity',
  name: 'Antigravity CLI',
  connection: 'redirect',
  why: 'Its PreToolUse hook can refuse run_command with a reason the model reads; a rewrite (an "overwrite" of the call) is reported in two shapes, ignored by some builds and checked against the original command by the permission review, so the hook refuses once and names the replacement.',
  facts: {
    sources: [
      { title: 'agy bundled hook docs, quoted in rtk PR #3959 (agy 1.1.27)', url: 'https://github.com/rtk-ai/rtk/pull/3959', read: '2026-12-01' },
      {
        title: 'agy issue #1053: "allow" does not allow (1.2.7)',
        url: 'https://github.com/google-antigravity/antigravity-cli/issues/1053',
        read: '2026-12-01',
      },
      {
        title: 'safe-chains targets/agy.rs, HARNESS-BEHAVIORS.md (agy 1.1.2, live)',
        url: 'https://github.com/michaeldhopkins/safe-chains/blob/main/src/targets/agy.rs',
        read: '2026-12-01',
      },
      { title: 'nodeterm PR #798: agy stdout contract measured on 1.2.3', url: 'https://github.com/eneskirca/nodeterm/pull/798', read: '2026-12-01' },
      { title: 'orca PR #14701: PreToolUse answers {"decision":"ask"}', url: 'https://github.com/stablyai/orca/pull/14701', read: '2026-12-01' },
      {
        title: 'PreToolHookResult overwrite is broken under request-review (agy 1.0.2)',
        url: 'https://discuss.ai.google.dev/t/pretoolhookresult-overwrite-is-broken-under-toolpermission-request-review/165839',
        read: '2026-12-01',
      },
      {
        title: 'Antigravity CLI docs: Gemini migration (context files), permissions, plugins',
        url: 'https://github.com/google-antigravity/antigravity-cli/tree/main/docs',
        read: '2026-12-01',
      },
    ],
    confirmed: [],
    documented: 'agy 1.1.27 bundled hooks.md (as quoted by third parties); behaviour reported for 1.0.2–1.2.7',
    failMode:
      'Closed: empty stdout (older builds), {}, an empty decision, text that is not JSON or a non-zero exit deny the call (nodeterm, 1.2.3; ai-memory issue #54, 1.0.3), so every path of the hook, and the installed command when sparehand is gone, answers {"decision":"ask"}.',
    quirks: [
      'A missing or malformed decision blocks the call; {} does too ("tool call denied by pre-tool hook"; uxnan PR #245 on 1.2.7, nodeterm on 1.2.3): sparehand answers {"decision":"ask"} whenever it leaves a command alone.',
      '"allow" approves the call without the user\'s review on 1.2.3 (nodeterm) but not on 1.1.2 and 1.2.7 (safe-chains; agy issue #1053), so sparehand never answers it; "ask" defers to the user\'s permission rules (orca PR #14701).',
      'The rewrite field "overwrite" is reported as the changed arguments ({"CommandLine": …}, shallow-merged; rtk PR #3959 on 1.1.27) and as a tool call ({"name", "args"}; rtk PR #2086), ignored on some builds (rtk PR #2093), and under request-review the user approves the original command while the overwrite is dropped (agy 1.0.2, discuss.ai.google.dev): sparehand redirects instead.',
      'hooks.json is a map of named bundles ({"<name>": {"PreToolUse": [{matcher, hooks}]}}); one key it does not know can drop the whole file, so sparehand writes only PreToolUse, matcher, hooks, type, command and timeout (safe-chains install; agy issue #1053).',
      'Some 1.1.x builds load hooks only from installed plugins (ToolAhead 0.7.0 on 1.1.11): there the hook does not run at all.',
      'The shell tool is run_command with PascalCase arguments (CommandLine, Cwd, WaitMsBeforeAsync, SafeToAutoRun); the payload is camelCase (conversationId, toolCall, workspacePaths) (safe-chains, websentry-ai/setup PR #104).',
    ],
    hookEvents: ['PreToolUse', 'PostToolUse', 'PreInvocation', 'PostInvocation', 'Stop'],
  },
  program: {
    binary: { name: 'agy', versionArgs: ['--version'] },
    // ~/.gemini/antigravity-cli is the CLI's own (agentmemory PR #1146); ~/.gemini alone is Gemini CLI's too.
    folders: (b) => [inHome('.gemini', 'antigravity-cli')(b)],
  },
  shellTools: ['run_command'],
  // How agy's shell starts (login or not) is not documented: the absolute path works either way.
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => isObject(raw.toolCall) && typeof raw.toolCall.name === 'string' && ('conversationId' in raw || 'workspacePaths' in raw),
  read: (p) => ({
    tool: p.toolCall.name,
    command: commandLine(p.toolCall.args.CommandLine),
    cwd: (typeof p.toolCall.args.Cwd === 'string' ? p.toolCall.args.Cwd : undefined) ?? p.workspacePaths?.[0],
    sessionId: p.conversationId,
  }),
  // Only a refusal is ever decided here (a redirect tool); anything else is the neutral answer.
  encode: (answer) => (answer.kind === 'refuse' ? json({ decision: 'deny', reason: answer.reason }) : { stdout: LEAVE, stderr: '', exitCode: 0 }),
  leaveStdout: LEAVE,
  // A payload in this tool's form for `agent test` (the fields the sources above show).
  samplePayload: (command, cwd) => ({
    conversationId: '7c1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6',
    stepIdx: 3,
    toolCall: { name: 'run_command', args: { CommandLine: command, Cwd: cwd, WaitMsBeforeAsync: 10000, SafeToAutoRun: false } },
    transcriptPath: '/dev/null',
    workspacePaths: [cwd],
  }),
  install: {
    targets: [target('user', inHome('.gemini', 'config', 'hooks.json')), target('project', inProject('.agents', 'hooks.json'))],
    // The context files its docs name (docs-cli-gcli-migration.md): ~/.gemini/GEMINI.md, and AGENTS.md in the workspace.
    notes: [
      { scope: 'user', path: inHome('.gemini', 'GEMINI.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'Antigravity CLI asks before running the replacement like any command: allow it with the permission rule command({sparehand} run) (/permissions), or approve it when asked. If your agy build reads hooks only from plugins (some 1.1.x), the hook does not run; the note in your rules still asks the model to use sparehand run.',
    ],
  },
};
