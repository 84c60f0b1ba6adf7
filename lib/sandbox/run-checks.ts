// A run and the coding tool's sandbox it may be in: no time spent on a network the sandbox cut, one line naming the
// sandbox (and the setting that would let it offload) when it is why no worker was reached, and no command run here
// outside a sandbox the user turned on (when sparehand itself was let out of it).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { SparehandError } from '../errors.js';
import { projectRoot } from '../project-root.js';
import { sandboxedReason } from './explain.js';
import { sandboxHere } from './here.js';
import { sandboxState } from './settings.js';

type Env = Pick<Context, 'home' | 'env' | 'cwd'>;

/** Before any worker is tried: the reason to run here when the sandbox this runs in has no network at all. */
export async function networkCutHere(c: Env, config: Pick<Config, 'workers'>): Promise<string | undefined> {
  const here = sandboxHere(c.env);
  if (here?.by !== 'marker' || here.network !== 'cut') return undefined;
  return sandboxedReason(c, here, 'cuts the network, so no worker can be reached from inside it', config);
}

/** Whether a failure is the sandbox's doing: its proxy or its filter refused, or sparehand's folders are read-only. */
function refusedBySandbox(e: SparehandError): boolean {
  const said = `${e.message}\n${String((e.cause as Error | undefined)?.message ?? '')}`;
  return e.code === 'IO' || /sparehand-proxy: .*refused|Operation not permitted|Network is unreachable/.test(said);
}

/** After no worker could be reached: the reason naming the sandbox, when it is why; undefined otherwise. */
export async function sandboxRefused(c: Env, config: Pick<Config, 'workers'>, failures: readonly SparehandError[]): Promise<string | undefined> {
  const here = sandboxHere(c.env);
  const refused = failures.find(refusedBySandbox);
  if (!here || !refused) return undefined;
  return sandboxedReason(c, here, `did not let sparehand through (${refused.message})`, config);
}

/** Whether this process can write in HOME itself: a sandbox keeps it read-only, so it tells inside from outside. */
function homeWritable(home: string): boolean {
  const probe = join(home, `.sparehand-probe-${process.pid}`);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
    rmSync(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * When sparehand runs as a tool's command outside the sandbox the user turned on for it (an exclusion or a rule let
 * `sparehand run` out), the command must not run here, where the sandbox would not hold it: the line to say instead.
 */
export function outsideChosenSandbox(c: Env, command: string): string | undefined {
  const here = sandboxHere(c.env);
  if (here?.by !== 'agent') return undefined;
  const state = sandboxState(here.spec, { home: c.home, env: c.env, project: projectRoot(c.cwd) }, { folders: [], hosts: [], unknown: [] });
  // Only where the user's settings turn it on: a tool's default can be switched off on its command line (unseen here).
  if (!state.on || !state.explicit || !homeWritable(c.home)) return undefined;
  return `sparehand runs outside ${here.spec.name} (${state.why}), so it will not run the command here, where the sandbox would not hold it; run it inside the sandbox yourself: SPAREHAND=off ${command}`;
}
