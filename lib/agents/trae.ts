// TRAE IDE (and TRAE CN). Sources: TRAE's hook pages (docs.trae.cn, mirrored on w3cschool.cn/traedocs: "Hook 配置详解",
// updated 2026-11-30 and 2026-12-01; "通过 Hook 实现自动化"), read 2026-12-03; rtk's TRAE adapter (rtk-ai/rtk
// src/hooks/init/trae.rs and hook_cmd.rs's process_trae_payload, third party), read 2026-12-03. Not confirmed in the
// real program: a desktop IDE, on neither npm nor Debian.
import type * as p from './payload-shape.js';
import { claudeStyleAnswer, claudeStyleTarget, inHome, inProject, once, preToolUsePayload, rewrittenInput, strField } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

const payload = once(() => preToolUsePayload({}));
type Payload = p.Infer<ReturnType<typeof payload>>;

/** TRAE's own hook files: `~/.trae/hooks.json` (TRAE, per rtk), `~/.trae-cn/hooks.json` (TRAE CN, its docs), the project's. */
const userFiles = [inHome('.trae', 'hooks.json'), inHome('.trae-cn', 'hooks.json')];
const projectFile = inProject('.trae', 'hooks.json');

// {"version":1,"hooks":{"PreToolUse":[{matcher, hooks:[{type, command, timeout}]}]}} (docs). The command exits 0 when
// sparehand is gone: what TRAE does with a command hook that fails is not documented (its enterprise HTTP hooks block
// by default).
const target = (scope: 'user' | 'project', path: (b: InstallBase) => string) =>
  claudeStyleTarget({
    agent: 'trae',
    scope,
    path,
    seed: { version: 1 },
    arrayPath: ['hooks', 'PreToolUse'],
    matcher: 'RunCommand',
    timeout: 10,
    guarded: true,
  });

export const trae: AgentSpec<Payload> = {
  id: 'trae',
  name: 'TRAE IDE',
  connection: 'rewrite',
  why: "Its PreToolUse hook can change a tool's parameters: the Claude-style updatedInput for the RunCommand tool (docs; rtk's adapter sends it).",
  facts: {
    sources: [
      {
        title: 'TRAE IDE Hook 配置详解 (docs.trae.cn, as mirrored)',
        url: 'https://www.w3cschool.cn/traedocs/trae-ide-hook-configuration-reference.html',
        read: '2026-12-03',
      },
      {
        title: 'TRAE IDE 通过 Hook 实现自动化 (docs.trae.cn, as mirrored)',
        url: 'https://www.w3cschool.cn/traedocs/trae-ide-automate-actions-with-hooks.html',
        read: '2026-12-03',
      },
      { title: "rtk's TRAE adapter (src/hooks/init/trae.rs, hook_cmd.rs)", url: 'https://github.com/rtk-ai/rtk', read: '2026-12-03' },
    ],
    confirmed: [],
    documented: 'docs.trae.cn hook pages (updated 2026-11-30, 2026-12-01)',
    failMode:
      'Not documented for command hooks: the installed command exits 0 silently when sparehand is gone. (TRAE Enterprise HTTP hooks block the call on a failure unless on_failure is "skip".)',
    quirks: [
      "Also runs Claude Code's settings hooks (~/.claude/settings.json, .claude/settings*.json) and merges them with its own (docs): a TRAE call that reaches sparehand's Claude Code entry is answered in TRAE's form, or left to the entry installed for TRAE when there is one, so that it is answered once.",
      'Project hooks (.trae/hooks.json) run only in a trusted folder, once enabled in Settings > Hooks (docs).',
      'The matcher is a regular expression on the tool name; "*", an empty one or none matches every tool; the timeout is in seconds, 30 by default (docs).',
      "The wire format of RunCommand (tool_input.command, the Claude-style updatedInput) comes from rtk's adapter: not in the pages read.",
      "~/.trae/hooks.json is TRAE's per rtk's adapter; the pages read (TRAE CN's) name ~/.trae-cn/hooks.json: install writes both.",
    ],
    hookEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'Notification'],
  },
  program: {
    binary: { name: 'trae', versionArgs: ['--version'] },
    folders: (b) => [inHome('.trae')(b), inHome('.trae-cn')(b)],
  },
  shellTools: ['RunCommand'],
  sparehandName: 'absolute',
  payload,
  recognise: (raw) => raw.hook_event_name === 'PreToolUse' && raw.tool_name === 'RunCommand',
  read: (p) => ({ tool: p.tool_name, command: p.tool_input.command, cwd: strField(p.tool_input, 'cwd') ?? p.cwd, sessionId: p.session_id }),
  // No permission decision: TRAE keeps its own for the rewritten command (rtk's adapter sends none).
  encode: (answer, p) => claudeStyleAnswer('PreToolUse', answer, () => rewrittenInput(p.tool_input, answer as never)),
  // A payload in this tool's form for `agent test` (the common fields of the docs, and RunCommand's command).
  samplePayload: (command, cwd) => ({
    session_id: 'trae-sparehand-test',
    cwd,
    hook_event_name: 'PreToolUse',
    tool_name: 'RunCommand',
    tool_input: { command },
  }),
  hookFiles: (b) => [...userFiles.map((f) => f(b)), projectFile(b)],
  install: {
    targets: [...userFiles.map((f) => target('user', f)), target('project', projectFile)],
    afterInstall: [
      'In TRAE, see that the hook is enabled under Settings > Hooks; a project hook runs only once the folder is trusted.',
      'TRAE decides for itself whether to ask before the rewritten command (RunCommand): allow "{sparehand} run" there if it asks.',
    ],
  },
};
