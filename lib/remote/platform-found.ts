// The worker's platform looked up on purpose (`worker add`), when no run or `worker check` has said it yet: one
// `perl -e` over the shared connection. Runs and `worker check` report it on their way (worker/platform.pl).
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { type Platform, parsePlatform } from '../platform/platform.js';
import { connectionFor, sshEnv } from './connection.js';
import { captureRemote } from './transport.js';
import { PLATFORM_PROBE } from './worker/parts.js';
import { rememberWorkerPlatform } from './worker-facts.js';

/** Asks the (reachable) worker what it is and records it; undefined when it cannot say (no perl there). */
export async function lookForWorkerPlatform(ctx: Context, worker: Worker): Promise<Platform | undefined> {
  const r = await captureRemote(sshEnv(ctx), worker, connectionFor(ctx, worker), quote(['perl', '-e', PLATFORM_PROBE]));
  const p = parsePlatform(/^platform=(.*)$/m.exec(r.stdout)?.[1] ?? '');
  if (p) await rememberWorkerPlatform(ctx, worker, p);
  return p;
}
