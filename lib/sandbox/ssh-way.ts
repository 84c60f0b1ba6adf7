// How ssh reaches a worker from inside a sandbox whose only way out is the proxy it gives its commands: as its
// ProxyCommand, sparehand's own tunnel (dist/ssh-proxy.cjs) through that proxy. Elsewhere, ssh as the user set it up.
import { outputOfSync } from '../process.js';
import { quote } from 'shell-quote';
import type { SshWorker } from '../config.js';
import { packagePath } from '../package-files.js';
import { sandboxHere } from './here.js';

type Env = { env: NodeJS.ProcessEnv };

/** The proxy variables, in the order a tunnel for ssh (raw TCP) prefers them. */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'];

/** The variable holding the proxy ssh can tunnel through (http:// or socks5://), if any. */
export function proxyVariable(env: NodeJS.ProcessEnv): string | undefined {
  return PROXY_VARIABLES.find((v) => /^(https?|socks5h?|socks):\/\//i.test(env[v] ?? ''));
}

/** What `ssh -G` makes of a worker; `proxy`: the user's ProxyCommand or ProxyJump for it, as `ProxyJump host`. */
export interface ResolvedHost {
  host: string;
  port: number;
  proxied: boolean;
  proxy?: string;
}

const resolved = new Map<string, ResolvedHost>();

/** What `ssh -G` makes of a worker: the host and port it connects to, and whether the user's config proxies it. */
export function resolvedHost(worker: Pick<SshWorker, 'destination' | 'port'>, env: NodeJS.ProcessEnv, configFile?: string): ResolvedHost {
  const key = JSON.stringify([worker.destination, worker.port, configFile, env.HOME]);
  let r = resolved.get(key);
  if (r === undefined) resolved.set(key, (r = askSsh(worker, env, configFile)));
  return r;
}

function askSsh(worker: Pick<SshWorker, 'destination' | 'port'>, env: NodeJS.ProcessEnv, configFile?: string): ResolvedHost {
  const fallback = { host: worker.destination.replace(/^[^@]*@/, ''), port: worker.port ?? 22, proxied: false };
  try {
    const out = outputOfSync(
      'ssh',
      [...(configFile ? ['-F', configFile] : []), ...(worker.port ? ['-p', String(worker.port)] : []), '-G', '--', worker.destination],
      { env, timeoutMs: 5000 },
    );
    const field = (k: string) => new RegExp(`^${k} (.*)$`, 'm').exec(out)?.[1]?.trim();
    const set = (v: string | undefined) => (v !== undefined && v !== 'none' ? v : undefined);
    const command = set(field('proxycommand'));
    const jump = set(field('proxyjump'));
    const proxy = command !== undefined ? `ProxyCommand ${command}` : jump !== undefined ? `ProxyJump ${jump}` : undefined;
    return {
      host: field('hostname') ?? fallback.host,
      port: Number(field('port') ?? fallback.port),
      proxied: proxy !== undefined,
      ...(proxy ? { proxy } : {}),
    };
  } catch {
    return fallback;
  }
}

/**
 * ssh's ProxyCommand for `worker` when this process is in a sandbox whose network is its proxy (and the user's own ssh
 * config does not already proxy the worker: that stays theirs); undefined otherwise.
 */
export function proxyCommandFor(c: Env, worker: SshWorker, configFile?: string): string | undefined {
  const here = sandboxHere(c.env);
  if (here?.by !== 'marker' || here.network !== 'proxy') return undefined;
  const variable = proxyVariable(c.env);
  if (variable === undefined || resolvedHost(worker, c.env, configFile).proxied) return undefined;
  return `${quote([process.execPath, packagePath('dist/ssh-proxy.cjs'), variable])} %h %p`;
}
