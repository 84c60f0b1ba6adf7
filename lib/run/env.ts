// The environment a command gets on a worker: an allowlist, never the whole local environment.
import type { Config } from '../config.js';

/** Forwarded when set: terminal, colour and CI behaviour that changes what the command prints, not what it reads. */
export const FORWARDED_ENV = [
  'CI',
  'FORCE_COLOR',
  'NO_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'TERM',
  'COLORTERM',
  'NODE_ENV',
  'RUST_BACKTRACE',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'GOFLAGS',
  'PYTEST_ADDOPTS',
] as const;

/** Name → value for the worker: the allowlist and the config's `env`, plus SPAREHAND_RUN=1. */
export function forwardedEnv(env: NodeJS.ProcessEnv, config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...FORWARDED_ENV, ...(config.env ?? [])]) {
    const v = env[name];
    if (v !== undefined) out[name] = v;
  }
  out.SPAREHAND_RUN = '1';
  return out;
}
