// Whether the hooks send a test command as `run --or-local --split auto`: only where the user's config asks for it
// (`split: "auto"`, globally or in the project's entry, which wins), and only for commands the planner can split.
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { projectRoot } from '../project-root.js';
import { projectEntry } from '../run/services.js';
import { canSplit } from './plan.js';
import { diskView } from './view.js';

/** Which parts of a rewrite split, or undefined when the config does not ask (the default). */
export function splitWanted(c: Pick<Context, 'home'>, config: Config, cwd: string): ((part: string) => boolean) | undefined {
  if (config.split === undefined && config.projects === undefined) return undefined;
  const wanted = projectEntry(c, config, projectRoot(cwd))?.split ?? config.split;
  if (wanted !== 'auto') return undefined;
  const view = diskView(cwd);
  return (part) => canSplit(part, view);
}
