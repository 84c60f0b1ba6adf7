// How sparehand reaches a worker's shell: ssh (its own config applies: a ProxyCommand or ProxyJump alias is a dev
// box behind a jump host), or later other kinds. What check, status and log say about it.
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { resolvedHost } from '../sandbox/ssh-way.js';
import { connectionFor } from './connection.js';

/** The transport as the reports show it. */
export type TransportInfo = { kind: 'ssh'; destination: string; proxy?: string };

/** What reaches `worker`: for ssh, its destination and the ProxyCommand or ProxyJump ssh's config gives it. */
export function transportInfo(ctx: Pick<Context, 'home' | 'env'>, worker: Worker): TransportInfo {
  const proxy = resolvedHost(worker, ctx.env, connectionFor(ctx, worker).configFile).proxy;
  return { kind: 'ssh', destination: worker.destination, ...(proxy ? { proxy } : {}) };
}

/** One line for people: `ssh host`, `ssh alias through ProxyCommand …`. */
export function transportLabel(t: TransportInfo): string {
  return `ssh ${t.destination}${t.proxy ? ` through ${t.proxy}` : ''}`;
}
