// This machine's services a run's command needs (a database on localhost:5432): which ones the config names for a
// project, and the ssh remote forwards that make each one 127.0.0.1:PORT on the worker for the run's duration.
import { realOrSame } from '../read-quietly.js';
import { join, resolve } from 'node:path';
import type { Config, Service } from '../config.js';
import type { Context } from '../context.js';

/** One forwarded service: the worker's 127.0.0.1:`port` leads to `host`:`port` here. */
export interface Forward {
  port: number;
  host: string;
}

/** A service the worker starts for the run (config.ts StartedServiceSchema), as the job carries it. */
export interface WorkerService {
  port: number;
  name: string;
  start: string;
  ready?: string;
  /** Seconds it has to get ready. */
  timeout: number;
}

/** A config entry as a forward: `5432` and `"5432"` are localhost's; `"HOST:PORT"` is HOST's; one the worker starts is none. */
export function parseService(s: Service): Forward | undefined {
  if (typeof s === 'object') return undefined;
  const m = /^(?:(.+):)?(\d{1,5})$/.exec(String(s));
  const port = Number(m?.[2]);
  if (!m || !(port >= 1 && port <= 65535)) return undefined;
  return { port, host: m[1] ?? 'localhost' };
}

/** A folder as the config names it (`~/src/app`), made absolute and, when it exists, without links. */
function folder(c: Pick<Context, 'home'>, p: string): string {
  return realOrSame(p === '~' ? c.home : p.startsWith('~/') ? join(c.home, p.slice(2)) : resolve(p));
}

/** The config's `projects` entry for the project at `root`, if any. */
export function projectEntry(c: Pick<Context, 'home'>, config: Config, root: string): ({ key: string } & NonNullable<Config['projects']>[string]) | undefined {
  const here = folder(c, root);
  const key = Object.keys(config.projects ?? {}).find((k) => folder(c, k) === here);
  return key === undefined ? undefined : { key, ...config.projects![key] };
}

/** The config's services for the project at `root`, one per port: the global ones, then the project's (which win). */
function entriesFor(c: Pick<Context, 'home'>, config: Config, root: string): Service[] {
  const byPort = new Map<number, Service>();
  for (const s of [...(config.services ?? []), ...(projectEntry(c, config, root)?.services ?? [])]) {
    const port = typeof s === 'object' ? s.port : parseService(s)?.port;
    if (port !== undefined) byPort.set(port, s);
  }
  return [...byPort.values()];
}

/** The services forwarded for a run of the project at `root` (not the ones the worker starts). */
export function servicesFor(c: Pick<Context, 'home'>, config: Config, root: string): Forward[] {
  return entriesFor(c, config, root).flatMap((s) => parseService(s) ?? []);
}

/** A started service's name when the config gives none: its program's (`/usr/bin/redis-server --port 1` → `redis-server`). */
function defaultName(start: string): string {
  const program = (start.trim().split(/\s+/)[0] ?? '').split('/').at(-1) ?? '';
  return program.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 64) || 'service';
}

/** The services the worker starts for a run of the project at `root` (worker/services.pl), in the config's order. */
export function workerServicesFor(c: Pick<Context, 'home'>, config: Config, root: string): WorkerService[] {
  return entriesFor(c, config, root).flatMap((s) =>
    typeof s === 'object'
      ? [
          {
            port: s.port,
            name: s.name ?? defaultName(s.start),
            start: s.start,
            ...(s.ready ? { ready: s.ready } : {}),
            timeout: s.timeout ?? 30,
          },
        ]
      : [],
  );
}

/** The line after a run that used forwards: what they cost, and the way to have the worker start the service. */
export function forwardedLine(forwards: readonly Forward[]): string {
  const names = forwards.map((f) => `${f.host}:${f.port}`);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${list} ${names.length === 1 ? 'was' : 'were'} forwarded from here (each request crosses ssh, several times slower than on the worker; a "start" in the config's "services" runs it on the worker instead: docs/run.md "Services on the worker")`;
}

/** ssh's `-R` for each: bound on the worker's loopback only, whatever its sshd's GatewayPorts says. */
export function remoteForwardArgs(forwards: readonly Forward[]): string[] {
  return forwards.flatMap((f) => ['-R', `127.0.0.1:${f.port}:${f.host}:${f.port}`]);
}

/** The config line that forwards `ports`, as a user pastes it. */
export function servicesLine(ports: readonly (number | string)[]): string {
  return `"services": [${ports.map((p) => (typeof p === 'number' ? String(p) : JSON.stringify(p))).join(', ')}]`;
}
