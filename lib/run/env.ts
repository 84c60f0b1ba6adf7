// The environment a command gets on a worker: an allowlist, never the whole local environment; this machine's locale and TZ.
import type { Config } from '../config.js';
import { LOCALE_ENV, sendableLocale } from '../locale.js';

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

/**
 * This machine's locale and TZ for the command there: each set here with a value that is a locale or TZ string,
 * and (as `null`) each locale variable not set here, which the command there must not have either (the worker's
 * profile may set one): unset, it means the C locale on either machine. TZ unset is left as the worker has it (here
 * it means this machine's zone, which the worker's own default may or may not be).
 */
export function localeEnv(env: NodeJS.ProcessEnv): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const name of [...LOCALE_ENV, 'TZ']) {
    const v = env[name];
    if (v === undefined) {
      if (name !== 'TZ') out[name] = null;
    } else if (sendableLocale(name, v)) out[name] = v;
  }
  return out;
}

/**
 * Name → value for the worker (null: unset there): the allowlist and the config's `env`, the locale and TZ, plus
 * SPAREHAND_RUN=1.
 */
export function forwardedEnv(env: NodeJS.ProcessEnv, config: Config): Record<string, string | null> {
  const out: Record<string, string | null> = localeEnv(env);
  for (const name of [...FORWARDED_ENV, ...(config.env ?? [])]) {
    const v = env[name];
    if (v !== undefined) out[name] = v;
  }
  out.SPAREHAND_RUN = '1';
  return out;
}
