// Continue CLI (`cn`). Sources: its bundle (@continuedev/cli@1.5.47: the rules loader reading .continue/rules/*.md and
// $CONTINUE_GLOBAL_DIR/rules/*.md, the hook settings loader, the Bash tool's `$SHELL -l -c`) and continuedev/continue
// extensions/cli/src/hooks/fireHook.ts, read 2026-12-01; the real program driven offline 2026-12-01
// (docs/real-programs.md, "More tools").
import { join } from 'node:path';
import { inProject } from './shapes.js';
import type { AgentSpec, InstallBase } from './types.js';

/** `$CONTINUE_GLOBAL_DIR`, default `~/.continue`. */
const continueHome = (b: InstallBase): string => b.env.CONTINUE_GLOBAL_DIR || join(b.home, '.continue');

export const continueCli: AgentSpec = {
  id: 'continue',
  name: 'Continue CLI',
  connection: 'note',
  why: 'It reads Claude-style hook settings but never runs them (its bundle never fires a hook event), so a rule file asks the model to run heavy commands through sparehand.',
  facts: {
    sources: [
      {
        title: 'Continue CLI 1.5.47 bundle (rules loader, hook loader, Bash tool)',
        url: 'https://www.npmjs.com/package/@continuedev/cli/v/1.5.47',
        read: '2026-12-01',
      },
      {
        title: 'Continue CLI hook events (extensions/cli/src/hooks/fireHook.ts)',
        url: 'https://github.com/continuedev/continue/blob/main/extensions/cli/src/hooks/fireHook.ts',
        read: '2026-12-01',
      },
    ],
    confirmed: [
      {
        package: '@continuedev/cli',
        version: '1.5.47',
        date: '2026-12-01',
        how: "cn -p --auto against a fake chat-completions server on 127.0.0.1: hook settings were loaded and never run; the rule sparehand agent install writes reached the model, and the command it names ran through sparehand run in cn's login shell (test/e2e/agents/continue.test.ts)",
      },
      {
        package: '@continuedev/cli',
        version: '1.5.47',
        date: '2026-12-01',
        how: 'still the newest on npm (dist-tag latest) on 2026-12-01; npm run test:agents passed through sparehand agent install (test/e2e/agents/continue.test.ts)',
      },
    ],
    documented: '@continuedev/cli 1.5.47 (bundle)',
    quirks: [
      'Claude-shaped hook settings (~/.continue/settings.json, ~/.claude/settings.json, the project\'s) are loaded ("Hooks loaded" in its log) but no hook ever runs (docs/real-programs.md, "More tools").',
      'Its Bash tool runs `$SHELL -l -c`: a login shell whose profile resets PATH, where a bare `sparehand` is "command not found", so the note names sparehand by absolute path (docs/real-programs.md, "More tools").',
      "A rule file without front matter (or with alwaysApply) is given to the model in every session (the bundle's rules loader).",
      "The repository defines firePreToolUse with Claude's payload; a release that calls it could be connected through a hook, so re-check when the version moves (fireHook.ts).",
    ],
  },
  program: {
    binary: { name: 'cn', versionArgs: ['--version'] },
    folders: (b) => [continueHome(b)],
  },
  shellTools: [],
  sparehandName: 'absolute',
  install: {
    targets: [],
    notes: [
      { scope: 'user', path: (b) => join(continueHome(b), 'rules', 'sparehand.md') },
      { scope: 'project', path: inProject('.continue', 'rules', 'sparehand.md') },
    ],
  },
};
