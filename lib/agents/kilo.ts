// Kilo Code CLI. Sources: kilo.ai/docs/automate/extending/plugins (plugin folders, tool.execute.before), read
// 2026-12-01; the real program @kilocode/cli@7.8.1 (binary @kilocode/cli-linux-x64@7.7.9) driven offline
// 2026-12-01 (docs/real-programs.md, "More tools"). Kilo is a fork of OpenCode that kept its plugin API, so
// sparehand's OpenCode plugin (opencode-plugin.ts) is installed in Kilo's own plugin folders.
import { inConfigHome, inHome, inProject } from './shapes.js';
import { type PluginPayload, pluginHook, pluginTarget } from './opencode-plugin.js';
import type { AgentSpec } from './types.js';

export const kilo: AgentSpec<PluginPayload> = {
  id: 'kilo',
  name: 'Kilo Code CLI',
  connection: 'rewrite',
  why: "Kilo loads OpenCode-style plugins from its own folders; in tool.execute.before sparehand's plugin changes the bash tool's command in place.",
  facts: {
    sources: [{ title: 'Kilo plugins', url: 'https://kilo.ai/docs/automate/extending/plugins', read: '2026-12-01' }],
    confirmed: [
      {
        package: '@kilocode/cli',
        version: '7.8.1',
        date: '2026-12-01',
        how: 'kilo run --auto against a fake chat-completions server on 127.0.0.1; output.args.command changed in place was honoured; re-checked through sparehand agent install by test/e2e/agents/kilo.test.ts',
        // 7.8.1 asks for @kilocode/cli-linux-x64@7.8.1, which is not published: its postinstall fails without this.
        needs: ['@kilocode/cli-linux-x64@7.7.9'],
      },
      {
        package: '@kilocode/cli',
        version: '7.8.1',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/kilo.test.ts)',
        needs: ['@kilocode/cli-linux-x64@7.7.9'],
      },
    ],
    documented: 'kilo.ai plugin docs (2026-12-01)',
    failMode:
      'In-process: the plugin catches every failure of the hook (sparehand gone, a crash, a 10 s timeout, bad JSON) and leaves the call alone; only a refusal throws, and Kilo gives its text to the model.',
    quirks: [
      'Plugins load from a plugin/ or plugins/ folder in ~/.config/kilo/ and the project\'s .kilo/ (and .kilocode/, .opencode/), not from OpenCode\'s user folder (docs/real-programs.md, "More tools").',
      'Only a change made to output.args in place is honoured; assigning a new output.args object is ignored (docs/real-programs.md, "More tools").',
      'With a plugin folder present Kilo npm-installs @kilocode/plugin at start (81 s instead of 8 s when the registry cannot be reached) (docs/real-programs.md, "More tools").',
      'Permissions are checked against the rewritten command; `kilo run --pure` loads no plugins (docs/real-programs.md, "More tools").',
      "Kilo also loads a project's .opencode/ plugin folders: with sparehand installed for OpenCode in a project, Kilo runs that plugin too, which asks the hook as OpenCode (same answers; SPAREHAND_AGENT_OPENCODE=off switches it off) (kilo.ai plugin docs).",
    ],
  },
  program: {
    binary: { name: 'kilo', versionArgs: ['--version'] },
    folders: (b) => [inConfigHome('kilo')(b), inHome('.kilocode')(b)],
  },
  ...pluginHook('kilo'),
  install: {
    targets: [pluginTarget('user', inConfigHome('kilo', 'plugin', 'sparehand.js')), pluginTarget('project', inProject('.kilo', 'plugin', 'sparehand.js'))],
    notes: [
      { scope: 'user', path: inConfigHome('kilo', 'AGENTS.md') },
      { scope: 'project', path: inProject('AGENTS.md') },
    ],
    afterInstall: [
      'Kilo checks its permission rules against the rewritten command: if you ask before bash commands, allow "{sparehand} run *" in kilo.json\'s permission.bash.',
    ],
  },
};
