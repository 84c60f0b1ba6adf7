// What a run of sparehand needs from inside a coding tool's sandbox to offload: its own folders writable, and the
// configured workers' hosts reachable (as ssh reaches them: an ~/.ssh/config alias is looked up with `ssh -G`).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { cacheDir, stateDir } from '../paths.js';
import { resolvedHost } from './ssh-way.js';

export interface SandboxWants {
  /** sparehand's own folders (absolute). */
  folders: string[];
  /** Each ssh worker's host and port as ssh connects to them. */
  hosts: { worker: string; host: string; port: number }[];
  /** Workers whose host cannot be known here (the user's ssh config reaches them through a proxy or a jump host). */
  unknown: string[];
}

/** The folders and hosts a run needs, for the workers in `config`. */
export function sandboxWants(c: Pick<Context, 'home' | 'env'>, config: Pick<Config, 'workers'>): SandboxWants {
  const sshConfig = join(c.home, '.ssh', 'config');
  const wants: SandboxWants = { folders: [cacheDir(c), stateDir(c)], hosts: [], unknown: [] };
  for (const w of config.workers ?? []) {
    // An exec worker's program reaches its engine (a socket, the Kubernetes API server) its own way.
    if (w.destination === undefined) {
      wants.unknown.push(w.name);
      continue;
    }
    const r = resolvedHost({ destination: w.destination, port: w.port }, c.env, existsSync(sshConfig) ? sshConfig : undefined);
    if (r.proxied) wants.unknown.push(w.name);
    else if (!wants.hosts.some((h) => h.host === r.host && h.port === r.port)) wants.hosts.push({ worker: w.name, host: r.host, port: r.port });
  }
  return wants;
}
