// This machine's services a run's command needs (a database on localhost:5432): which ones the config names for a
// project, and the ssh remote forwards that make each one 127.0.0.1:PORT on the worker for the run's duration.
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config, Service } from '../config.js';
import type { Context } from '../context.js';

/** One forwarded service: the worker's 127.0.0.1:`port` leads to `host`:`port` here. */
export interface Forward {
  port: number;
  host: string;
}

/** A config entry as a forward: `5432` and `"5432"` are localhost's; `"HOST:PORT"` is HOST's. */
export function parseService(s: Service): Forward | undefined {
  const m = /^(?:(.+):)?(\d{1,5})$/.exec(String(s));
  const port = Number(m?.[2]);
  if (!m || !(port >= 1 && port <= 65535)) return undefined;
  return { port, host: m[1] ?? 'localhost' };
}

/** A folder as the config names it (`~/src/app`), made absolute and, when it exists, without links. */
function folder(c: Pick<Context, 'home'>, p: string): string {
  const abs = p === '~' ? c.home : p.startsWith('~/') ? join(c.home, p.slice(2)) : resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** The config's `projects` entry for the project at `root`, if any. */
export function projectEntry(c: Pick<Context, 'home'>, config: Config, root: string): { key: string; services?: Service[] } | undefined {
  const here = folder(c, root);
  const key = Object.keys(config.projects ?? {}).find((k) => folder(c, k) === here);
  return key === undefined ? undefined : { key, ...config.projects![key] };
}

/** The services forwarded for a run of the project at `root`: the global ones, then the project's (one per port; the project's wins). */
export function servicesFor(c: Pick<Context, 'home'>, config: Config, root: string): Forward[] {
  const byPort = new Map<number, Forward>();
  for (const s of [...(config.services ?? []), ...(projectEntry(c, config, root)?.services ?? [])]) {
    const f = parseService(s);
    if (f) byPort.set(f.port, f);
  }
  return [...byPort.values()];
}

/** ssh's `-R` for each: bound on the worker's loopback only, whatever its sshd's GatewayPorts says. */
export function remoteForwardArgs(forwards: readonly Forward[]): string[] {
  return forwards.flatMap((f) => ['-R', `127.0.0.1:${f.port}:${f.host}:${f.port}`]);
}

/** The config line that forwards `ports`, as a user pastes it. */
export function servicesLine(ports: readonly (number | string)[]): string {
  return `"services": [${ports.map((p) => (typeof p === 'number' ? String(p) : JSON.stringify(p))).join(', ')}]`;
}
