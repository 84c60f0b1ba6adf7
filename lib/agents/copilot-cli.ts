// GitHub Copilot CLI. Sources: github/docs content/copilot/reference/hooks-reference.md (commit 05da5bc3),
// cli-config-dir-reference.md, read 2026-11-29. Real program: @github/copilot@1.0.102 driven offline,
// 2026-11-29 (docs/real-programs.md, fact 5).
import { join } from 'node:path';
import * as p from './payload-shape.js';
import { claudeStyleAnswer, flatTarget, guardedShell, inProject, isObject, json, once, rewrittenInput } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

// camelCase form (event `preToolUse`); toolArgs is an object in the real program, a JSON string in the docs.
const payload = once(() =>
  p.union([
    p.looseObject({ toolName: p.string(), toolArgs: p.unknown(), sessionId: p.optional(p.string()), cwd: p.optional(p.string()) }),
    // PascalCase form (event `PreToolUse`, also repo .claude/settings.json): Claude-like with a timestamp.
    p.looseObject({
      hook_event_name: p.literal('PreToolUse'),
      timestamp: p.string(),
      tool_name: p.string(),
      tool_input: p.looseObject({ command: p.string() }),
      session_id: p.optional(p.string()),
      cwd: p.optional(p.string()),
    }),
  ]),
);
type Payload = p.Infer<ReturnType<typeof payload>>;
type Pascal = Extract<Payload, { timestamp: string }>;
const isPascal = (p: Payload): p is Pascal => typeof (p as Pascal).tool_input === 'object';

/** toolArgs as an object, whichever form it came in. */
function args(p: Payload): Record<string, unknown> | undefined {
  if (isPascal(p)) return p.tool_input;
  let a: unknown = p.toolArgs;
  if (typeof a === 'string') {
    try {
      a = JSON.parse(a);
    } catch {
      return undefined;
    }
  }
  return isObject(a) && typeof a.command === 'string' ? a : undefined;
}

/** `$COPILOT_HOME`, default `~/.copilot`. */
const copilotHome = (b: InstallBase): string => b.env.COPILOT_HOME || join(b.home, '.copilot');

const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  flatTarget({
    agent: 'copilot-cli',
    scope,
    path,
    seed: { version: 1 },
    arrayPath: ['hooks', 'preToolUse'],
    // A hook that exits non-zero blocks the call: the command exits 0 when sparehand is gone.
    entry: (hook) => ({ type: 'command', matcher: 'bash', bash: guardedShell(hook), timeoutSec: 10 }),
    commandAt: (e) => e.bash,
  });

export const copilotCli: AgentSpec<Payload> = {
  id: 'copilot-cli',
  name: 'GitHub Copilot CLI',
  connection: 'rewrite',
  why: "Its preToolUse hook can substitute the bash tool's arguments (modifiedArgs).",
  facts: {
    sources: [{ title: 'GitHub Copilot hooks reference', url: 'https://docs.github.com/en/copilot/reference/hooks-reference', read: '2026-11-29' }],
    confirmed: [
      {
        package: '@github/copilot',
        version: '1.0.102',
        date: '2026-11-29',
        how: 'copilot -p --allow-all-tools against a fake chat-completions server on 127.0.0.1; modifiedArgs honoured; re-checked through sparehand agent install by test/e2e/agents/copilot-cli.test.ts',
      },
      {
        package: '@github/copilot',
        version: '1.0.102',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/copilot-cli.test.ts)',
      },
    ],
    documented: 'hooks-reference.md commit 05da5bc3',
    failMode:
      'Closed on a crash or any non-zero exit (the call is denied); open on a timeout and on unparsable output (hooks-reference), so the installed command exits 0 when sparehand is gone.',
    quirks: [
      'Any non-zero exit of a command hook denies the call; a timeout does not (hooks-reference; docs/real-programs.md, fact 5).',
      'toolArgs arrives as an object although the docs show a JSON string, and as a string for some tools (rtk src/hooks/hook_cmd.rs parses it as one): both are accepted (docs/real-programs.md, fact 5).',
      'modifiedArgs is said to be honoured only from 1.0.24 on (no release note in the stored sources confirms the version): an older Copilot CLI would run the original command, as if left alone. 1.0.102 honours it (test/e2e/agents/copilot-cli.test.ts).',
      'Refuses, even with --allow-all-tools, commands naming an absolute path outside the work folder and /tmp, so the rewrite names sparehand bare; without it on PATH the command is left alone (docs/real-programs.md, fact 5).',
      'Claude-shaped answers are ignored for the camelCase event; the user sees the original command while the rewritten one runs (docs/real-programs.md, fact 5).',
    ],
    // hooks-reference.md (camelCase events of ~/.copilot/hooks/*.json).
    hookEvents: ['sessionStart', 'sessionEnd', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'errorOccurred'],
  },
  program: {
    binary: { name: 'copilot', versionArgs: ['--version'] },
    folders: (b) => [copilotHome(b)],
  },
  // `bash` in its own camelCase payload; `Bash` in the Claude-compatible one.
  shellTools: ['bash', 'Bash'],
  // It refuses commands naming an absolute path outside the work folder: the bare `sparehand` on its PATH.
  sparehandName: 'bare',
  payload,
  recognise: (raw) =>
    (typeof raw.toolName === 'string' && 'toolArgs' in raw) ||
    (raw.hook_event_name === 'PreToolUse' && typeof raw.timestamp === 'string' && raw.tool_name === 'Bash'),
  read: (p) => {
    const a = args(p);
    const [tool, sessionId] = isPascal(p) ? [p.tool_name, p.session_id] : [p.toolName as string, p.sessionId as string | undefined];
    if (!a) return null;
    return { tool, command: a.command as string, cwd: p.cwd as string | undefined, sessionId };
  },
  encode: (answer, p) => {
    const a = args(p) ?? {};
    if (isPascal(p)) return claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(a, answer as never));
    return answer.kind === 'refuse'
      ? json({ permissionDecision: 'deny', permissionDecisionReason: answer.reason })
      : json({ ...(answer.approve ? { permissionDecision: 'allow' } : {}), modifiedArgs: rewrittenInput(a, answer) });
  },
  // A payload in this tool's form for `agent test` (shaped like the captured/example payloads).
  samplePayload: (command, cwd) => ({
    sessionId: '5e1dc69c-a602-469d-bd8c-054e2da968a3',
    timestamp: 1795977530885,
    cwd,
    toolName: 'bash',
    toolArgs: { command, description: 'sparehand agent test' },
  }),
  // From the documentation only (docs.github.com copilot-cli local sandboxing pages, github/docs@03b432e, read
  // 2026-12-01): experimental, off by default (`sandbox.enabled` in ~/.copilot/settings.json); no documented marker;
  // its path and host rules are set in /sandbox config, whose keys the pages do not give.
  sandbox: {
    name: "Copilot CLI's sandbox",
    onByDefault: false,
    checked: 'documentation',
    agentEnv: [],
    insideEnv: [],
    readOnlyInProject: [],
    settings: {
      format: 'json',
      file: (b) => join(copilotHome(b), 'settings.json'),
      switch: { key: ['sandbox', 'enabled'], off: [false] },
    },
    manual:
      'in /sandbox config, add ~/.cache/sparehand and ~/.local/state/sparehand under Filesystem as Read/Write, and a host rule allowing each worker under Network (with "Allow local network" for one on your LAN); or approve running sparehand outside the sandbox when Copilot asks',
  },
  install: {
    targets: [target('user', (b) => join(copilotHome(b), 'hooks', 'sparehand.json')), target('project', inProject('.github', 'hooks', 'sparehand.json'))],
    notes: [
      { scope: 'user', path: (b) => join(copilotHome(b), 'copilot-instructions.md') },
      { scope: 'project', path: inProject('.github', 'copilot-instructions.md') },
    ],
    afterInstall: [
      // Copilot CLI 1.0.102 matches shell(NAME) on the program name: `shell(sparehand run)` matched nothing
      // (test/e2e/agents/copilot-cli.test.ts).
      "Copilot CLI checks its permissions against the rewritten command: allow it with --allow-tool 'shell(sparehand:*)' (or --allow-all-tools). That rule approves every command run through `sparehand run`, including ones the model writes itself.",
    ],
  },
};
