// OpenCode. Sources: anomalyco/opencode packages/plugin/src/index.ts (v1 Hooks, 0149423),
// packages/plugin/src/promise/tool.ts (v2, 196e461), packages/opencode/src/tool/bash.ts (00376c2), read
// 2026-11-29. Real program: opencode-ai@1.18.33 driven offline, 2026-11-29 (docs/real-programs.md, fact 7).
// OpenCode has no command hooks: sparehand's plugin (opencode-plugin.ts) sends this payload and applies the answer.
import { inConfigHome, inProject } from './shapes.js';
import { type PluginPayload, pluginHook, pluginTarget } from './opencode-plugin.js';
import type { AgentSpec } from './types.js';

export const opencode: AgentSpec<PluginPayload> = {
  id: 'opencode',
  name: 'OpenCode',
  connection: 'rewrite',
  why: "A plugin's tool.execute.before (v1) / execute.before (v2) can change the bash tool's args in place; sparehand's plugin asks the hook and applies its answer.",
  facts: {
    sources: [
      {
        title: 'OpenCode plugin API v1 (packages/plugin/src/index.ts)',
        url: 'https://github.com/anomalyco/opencode/blob/dev/packages/plugin/src/index.ts',
        read: '2026-11-29',
      },
      {
        title: 'OpenCode plugin API v2 (packages/plugin/src/promise/tool.ts)',
        url: 'https://github.com/anomalyco/opencode/blob/dev/packages/plugin/src/promise/tool.ts',
        read: '2026-11-29',
      },
    ],
    confirmed: [
      {
        package: 'opencode-ai',
        version: '1.18.33',
        date: '2026-11-29',
        how: 'opencode run against a fake chat-completions server on 127.0.0.1; a plugin changing output.args.command was honoured; re-checked through sparehand agent install by test/e2e/agents/opencode.test.ts',
      },
      {
        package: 'opencode-ai',
        version: '1.18.33',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/opencode.test.ts)',
      },
    ],
    documented: 'plugin API v1 + v2 sources',
    failMode:
      'In-process: the plugin catches every failure of the hook (sparehand gone, a crash, a 10 s timeout, bad JSON) and leaves the call alone; only a refusal throws.',
    quirks: [
      'Once a plugin folder exists OpenCode npm-installs @opencode-ai/plugin at start (about 3 s; 74 s when the registry is unreachable) (docs/real-programs.md, fact 7).',
      'A plugin needs no import from OpenCode; both a named async factory and `export default { id, setup, server }` load (docs/real-programs.md).',
      "Refusing = throwing from the plugin: the error text reaches the model as the tool failure (third-party plugins; not verified in OpenCode's source).",
    ],
  },
  program: {
    binary: { name: 'opencode', versionArgs: ['--version'] },
    folders: (b) => [inConfigHome('opencode')(b)],
  },
  ...pluginHook('opencode', { legacy: true }),
  install: {
    targets: [
      pluginTarget('user', inConfigHome('opencode', 'plugins', 'sparehand.js')),
      pluginTarget('project', inProject('.opencode', 'plugins', 'sparehand.js')),
    ],
    notes: [
      { scope: 'user', path: inConfigHome('opencode', 'AGENTS.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'OpenCode checks its permission rules against the rewritten command: if you ask before bash commands, allow "{sparehand} run *" in opencode.json\'s permission.bash.',
    ],
  },
};
