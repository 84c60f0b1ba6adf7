// Crush (Charm). Sources: charmbracelet/crush docs/hooks/README.md, internal/hooks/input.go, internal/config/load.go
// (commit 37f36e93, 2026-08-21), read 2026-12-01. Not confirmed in the real program: its npm package
// (@charmland/crush) downloads the binary from the internet in its postinstall (docs/real-programs.md, "More tools").
import { join } from 'node:path';
import * as p from './payload-shape.js';
import { flatTarget, inConfigHome, inHome, inProject, isObject, json, looseInput, once } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() =>
  p.looseObject({
    event: p.literal('PreToolUse'),
    tool_name: p.string(),
    tool_input: looseInput(),
    session_id: p.optional(p.string()),
    cwd: p.optional(p.string()),
  }),
);
type Payload = p.Infer<ReturnType<typeof payload>>;

/** `$CRUSH_GLOBAL_CONFIG/crush.json`, default `$XDG_CONFIG_HOME/crush/crush.json` (internal/config/load.go). */
const globalConfig = (b: InstallBase): string =>
  b.env.CRUSH_GLOBAL_CONFIG ? join(b.env.CRUSH_GLOBAL_CONFIG, 'crush.json') : inConfigHome('crush', 'crush.json')(b);

// Flat entries {name, matcher, command, timeout} under hooks.PreToolUse; the file is strict JSON (json.Valid).
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  flatTarget({
    agent: 'crush',
    scope,
    path,
    arrayPath: ['hooks', 'PreToolUse'],
    entry: (hook) => ({ name: 'sparehand', matcher: '^bash$', command: hook.shell, timeout: 10 }),
    commandAt: (e) => e.command,
  });

export const crush: AgentSpec<Payload> = {
  id: 'crush',
  name: 'Crush',
  connection: 'rewrite',
  why: "Its PreToolUse hook can return updated_input, merged into the bash tool's input before the permission check.",
  facts: {
    sources: [
      { title: 'Crush hooks (docs/hooks/README.md)', url: 'https://github.com/charmbracelet/crush/blob/main/docs/hooks/README.md', read: '2026-12-01' },
      {
        title: 'Crush hook payload (internal/hooks/input.go)',
        url: 'https://github.com/charmbracelet/crush/blob/main/internal/hooks/input.go',
        read: '2026-12-01',
      },
    ],
    confirmed: [],
    documented: 'crush source, commit 37f36e93 (2026-08-21)',
    failMode:
      'Fails open: a timeout or an exit status other than 0, 2 and 49 is a non-blocking error and the call proceeds; exit 2 denies, exit 49 stops the turn (docs/hooks/README.md).',
    quirks: [
      'Not run here: the npm package downloads its binary from the internet at install (docs/real-programs.md, "More tools").',
      'updated_input is a shallow-merge patch (keys left out are kept); "decision":"allow" would skip the permission prompt, so the rewrite carries no decision and Crush asks for the rewritten command as it would for the original (docs/hooks/README.md).',
      'The Claude form (hookSpecificOutput) is read too (internal/hooks/input.go).',
      'The bash tool runs in Crush\'s embedded POSIX shell with the PATH Crush was started with (docs/hooks/README.md, "Execution model").',
    ],
    // Only the event sparehand writes is listed: its docs (above) name more, not checked here.
    hookEvents: ['PreToolUse'],
  },
  program: {
    binary: { name: 'crush', versionArgs: ['--version'] },
    folders: (b) => [inConfigHome('crush')(b), inHome('.local', 'share', 'crush')(b)],
  },
  shellTools: ['bash'],
  sparehandName: 'absolute',
  payload,
  // Every payload of Crush's has `cwd` and, for a tool event, `tool_input` (internal/hooks/input.go): other tools that
  // name the event `event` send neither the one nor the other.
  recognise: (raw) => raw.event === 'PreToolUse' && typeof raw.tool_name === 'string' && typeof raw.cwd === 'string' && isObject(raw.tool_input),
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: p.cwd, sessionId: p.session_id }),
  encode: (answer) =>
    answer.kind === 'refuse'
      ? json({ decision: 'deny', reason: answer.reason })
      : json({ ...(answer.approve ? { decision: 'allow' } : {}), updated_input: { command: answer.command } }),
  // A payload in this tool's form for `agent test` (the documented stdin payload).
  samplePayload: (command, cwd) => ({
    event: 'PreToolUse',
    session_id: '313909e',
    cwd,
    tool_name: 'bash',
    tool_input: { command, description: 'sparehand agent test' },
  }),
  install: {
    targets: [target('user', globalConfig), target('project', inProject('crush.json'))],
    notes: [
      { scope: 'user', path: inConfigHome('crush', 'CRUSH.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [],
  },
};
