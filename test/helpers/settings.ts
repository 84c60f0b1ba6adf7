// A tool's settings file as the install tests see it, whatever its format (JSON or TOML): what a user's own file
// holds before install, what a file that held only its seed holds, a file that does not parse, and the hook list.
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { allAgents } from '../../lib/agents/index.js';
import type { AgentSpec, JsonHookTarget, Scope, TomlHookTarget } from '../../lib/agents/types.js';
import { tomlPath } from '../../lib/install/toml-text.js';

export type SettingsTarget = JsonHookTarget | TomlHookTarget;

/** The tools connected by a note only: no entry in any settings file, at least one note. Tests using it check it is not empty. */
export const noteOnlyAgents = (): AgentSpec[] => allAgents().filter((a) => a.install.targets.length === 0 && (a.install.notes ?? []).length > 0);

/** The targets of a tool that are entries in a settings file (not whole files of sparehand's). */
export const settingsTargets = (a: AgentSpec, scope: Scope): SettingsTarget[] =>
  a.install.targets.filter((t): t is SettingsTarget => (t.kind === 'json' || t.kind === 'toml') && t.scope === scope);

/** A user's own entry in a hook list: not sparehand's. */
export const userHook = (t: SettingsTarget): Record<string, unknown> =>
  t.kind === 'json' ? { matcher: 'UserTool', hooks: [{ type: 'command', command: 'echo user-hook' }] } : { command: 'echo user-hook' };

/** The user's settings as they might be before install: their own key and hook, and a comment where allowed. */
export function userSettings(t: SettingsTarget): string {
  if (t.kind === 'toml') return `# my own settings\nuserSetting = "keep me"\n\n[[${tomlPath(t.arrayPath)}]]\ncommand = "echo user-hook"\n`;
  let hooks: unknown = [userHook(t)];
  for (const k of [...t.arrayPath].reverse()) hooks = { [k]: hooks };
  const text = JSON.stringify({ ...t.seed, userSetting: 'keep me', ...(hooks as object) }, null, 4);
  return t.comments ? `// my own settings\n${text}\n` : `${text}\n`;
}

/** What a file holding only what install starts a new file as looks like (`{}`, `{"version": 1}`, empty TOML). */
export const seedOnly = (t: SettingsTarget): string => (t.kind === 'toml' ? '' : `${JSON.stringify(t.seed ?? {})}\n`);

/** Text the format cannot parse. */
export const unparsable = (t: SettingsTarget): string => (t.kind === 'toml' ? 'hooks = [' : '{ "half": [1, 2');

/** Whether the file's format keeps comments (so a user's comment must survive install). */
export const keepsComments = (t: SettingsTarget): boolean => t.kind === 'toml' || t.comments;

/** The parsed file and its hook list. */
export function readSettings(t: SettingsTarget, text: string): { root: Record<string, unknown>; list: unknown[] } {
  const root = (t.kind === 'toml' ? parseToml(text) : parseJsonc(text)) as Record<string, unknown>;
  let list: unknown = root;
  for (const k of t.arrayPath) list = (list as Record<string, unknown>)[k];
  return { root, list: list as unknown[] };
}
