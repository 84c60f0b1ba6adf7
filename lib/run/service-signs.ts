// Signs that a project's commands need services on this machine: a compose file publishing ports, `.env*` files
// whose URLs (DATABASE_URL, REDIS_URL…) or *_HOST/*_PORT pairs point at localhost. `doctor` and a project's first
// run name them with the config line that forwards them (services.ts). Values of `.env*` are never printed.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { tilde } from '../context.js';
import { namesIn, textOf } from '../read-quietly.js';
import { servicesFor } from './services.js';

export interface ServiceSign {
  port: number;
  /** Where it was seen: `compose.yaml`, `.env (DATABASE_URL)`. */
  where: string;
}

const COMPOSE = ['compose.yaml', 'compose.yml', 'docker-compose.yml', 'docker-compose.yaml'];
const FILE_MAX = 256 * 1024;

/** The usual ports of URL schemes that name none. */
const SCHEME_PORT: Record<string, number> = {
  postgres: 5432,
  postgresql: 5432,
  mysql: 3306,
  mariadb: 3306,
  redis: 6379,
  rediss: 6379,
  mongodb: 27017,
  amqp: 5672,
  memcached: 11211,
};

/** Published ports of a compose file: `- "5432:5432"`, `- 127.0.0.1:6379:6379/tcp`, `published: 8080`. */
export function composePorts(text: string): number[] {
  const ports: number[] = [];
  for (const line of text.split('\n')) {
    const short = /^\s*-\s*["']?(?:\d{1,3}(?:\.\d{1,3}){3}:)?(\d{1,5}):\d{1,5}(?:\/\w+)?["']?\s*(?:#.*)?$/.exec(line);
    const long = /^\s*published:\s*["']?(\d{1,5})["']?\s*(?:#.*)?$/.exec(line);
    const p = Number((short ?? long)?.[1]);
    if (p >= 1 && p <= 65535) ports.push(p);
  }
  return ports;
}

const LOOPBACK = /^(?:localhost|127\.0\.0\.1|\[::1\]|::1)$/i;

/** `.env` lines naming a service at localhost: a URL's port (or its scheme's), or NAME_HOST=localhost with NAME_PORT. */
export function envPorts(text: string): { port: number; name: string }[] {
  const vars = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) vars.set(m[1]!, m[2]!.replace(/^(["'])(.*)\1$/, '$2'));
  }
  const found: { port: number; name: string }[] = [];
  for (const [name, value] of vars) {
    const url = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/\s]*@)?(\[[^\]]+\]|[^:/?\s]+)(?::(\d{1,5}))?/i.exec(value);
    if (url && LOOPBACK.test(url[2]!)) {
      const port = url[3] ? Number(url[3]) : SCHEME_PORT[url[1]!.toLowerCase().split('+')[0]!];
      if (port) found.push({ port, name });
      continue;
    }
    const host = /^(.*)_HOST$/.exec(name);
    const port = host ? Number(vars.get(`${host[1]}_PORT`)) : NaN;
    if (host && LOOPBACK.test(value) && port >= 1 && port <= 65535) found.push({ port, name: `${name}, ${host[1]}_PORT` });
  }
  return found;
}

/** The signs in the project at `root` (its top folder only: where compose and .env files live). */
export function serviceSigns(root: string): ServiceSign[] {
  const names = namesIn(root);
  const signs: ServiceSign[] = [];
  // Only a regular file of a sane size: a FIFO named .env must not hang a run.
  const read = (n: string) => {
    const st = statSync(join(root, n), { throwIfNoEntry: false });
    return st?.isFile() && st.size <= FILE_MAX ? textOf(join(root, n)) : '';
  };
  for (const n of COMPOSE.filter((c) => names.includes(c))) for (const port of composePorts(read(n))) signs.push({ port, where: n });
  for (const n of names.filter((x) => /^\.env(?:\.[\w.-]+)?$/.test(x)).sort())
    for (const e of envPorts(read(n))) signs.push({ port: e.port, where: `${n} (${e.name})` });
  return signs;
}

/**
 * One line naming the signs whose ports the config does not forward for the project, and the config line that
 * would; undefined when there are none.
 */
export function serviceSignsLine(ctx: Pick<Context, 'home'>, config: Config, root: string): string | undefined {
  const forwarded = new Set(servicesFor(ctx, config, root).map((f) => f.port));
  const signs = serviceSigns(root).filter((s) => !forwarded.has(s.port));
  if (signs.length === 0) return undefined;
  const ports = [...new Set(signs.map((s) => s.port))].sort((a, b) => a - b);
  const seen = [...new Set(signs.map((s) => `${s.where}: ${s.port}`))].join(', ');
  const entry = JSON.stringify({ [tilde(ctx, root)]: { services: ports } });
  return `this project looks like it uses services on this machine (${seen}); a command on a worker reaches them only when forwarded: add "projects": ${entry} to the config (docs/run.md "Services on this machine")`;
}
