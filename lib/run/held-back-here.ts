// The files held back from the worker for what they hold (lib/send/held-back.ts), for one run: found once, named
// on the project's first run and whenever they change (`.sparehand/sync/held-back` keeps what was last said), and
// by `sparehand doctor` in the project.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { type Context, tilde } from '../context.js';
import { writeOwnFileSync } from '../fs-atomic.js';
import { configPath } from '../paths.js';
import { type SecretPlan, heldBackLine, secretPlan, sendHeldBackOf } from '../send/held-back.js';
import { OWN_FOLDER, ownFolder } from '../state/own-folder.js';
import { projectEntry } from './services.js';

/** What the way up sends and holds back of the secret list's files in the project at `root`, and the line naming what it holds back. */
export async function heldBackHere(ctx: Context, config: Config, root: string): Promise<{ plan: SecretPlan; line: string | undefined }> {
  const { allowed, project } = sendHeldBackOf(config, projectEntry(ctx, config, root), tilde(ctx, root));
  const plan = await secretPlan(root, ctx.env, config, allowed);
  return { plan, line: heldBackLine(plan.held, project, tilde(ctx, configPath(ctx))) };
}

const SAID = join(OWN_FOLDER, 'sync', 'held-back');

/** Whether the held-back files differ from those the last run named (and remembers these). */
export function heldBackChanged(root: string, plan: SecretPlan): boolean {
  const now = JSON.stringify(plan.held.map((h) => h.path));
  let was: string | undefined;
  try {
    was = readFileSync(join(root, SAID), 'utf8');
  } catch {
    was = undefined;
  }
  if (was === now || (was === undefined && plan.held.length === 0)) return false;
  const dir = ownFolder(root, 'sync');
  if (!('why' in dir)) {
    try {
      writeOwnFileSync(join(root, SAID), now);
    } catch {
      /* said again next time */
    }
  }
  return true;
}
