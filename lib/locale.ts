// This machine's locale (LANG, LC_*) and TZ as a run carries them to the worker (run/env.ts), and whether the worker
// has that locale (remote/check.ts: `worker check`, `doctor`). Below both: names and values only.

/** LANG and POSIX's and glibc's LC_ categories. */
export const LOCALE_ENV = [
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_ADDRESS',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_NAME',
  'LC_PAPER',
  'LC_TELEPHONE',
] as const;

/** A locale's name as setlocale takes it (`en_US.UTF-8`, `sr_RS@latin`, `C`), or empty (the variable set, to nothing). */
const LOCALE_VALUE = /^[A-Za-z0-9_.+@-]{0,100}$/;
/** A TZ value: a zone (`Asia/Tokyo`, `:Europe/Paris`) or a POSIX rule (`EST5EDT`, `<+0530>-5:30`), never `..`. */
const TZ_VALUE = /^:?[A-Za-z0-9_+\-/.,:<>]{1,100}$/;

/** Whether `value` is one sparehand sends for `name` (a locale or TZ string: it ends up in the command's environment). */
export function sendableLocale(name: string, value: string): boolean {
  if (name === 'TZ') return TZ_VALUE.test(value) && !value.split('/').includes('..');
  return LOCALE_VALUE.test(value);
}

/**
 * A locale name as glibc compares them: the codeset lower-cased without punctuation (`en_US.UTF-8` and `en_US.utf8`
 * are one locale; `locale -a` lists the second on Linux, the first on macOS).
 */
export function normalLocale(name: string): string {
  const m = /^([^.@]*)(?:\.([^@]*))?(@.*)?$/.exec(name);
  if (!m) return name;
  const codeset = m[2] === undefined ? '' : `.${m[2].toLowerCase().replace(/[^a-z0-9]/g, '')}`;
  return `${m[1]}${codeset}${m[3] ?? ''}`;
}

/** C, POSIX and C.UTF-8 are there on every system (glibc 2.35 and later, musl and macOS have C.UTF-8 built in). */
export function alwaysThere(name: string): boolean {
  return name === '' || /^(C|POSIX)$/.test(name) || normalLocale(name) === 'C.utf8';
}

/**
 * The locales the command uses, by the variable that names each (LC_ALL alone when it is set: it overrides the
 * rest); only the ones a system may lack.
 */
export function localesInUse(env: NodeJS.ProcessEnv): Array<{ name: string; locale: string }> {
  const all = env.LC_ALL ? ['LC_ALL'] : LOCALE_ENV.filter((n) => n !== 'LC_ALL');
  const out: Array<{ name: string; locale: string }> = [];
  for (const name of all) {
    const locale = env[name];
    if (locale === undefined || alwaysThere(locale) || !sendableLocale(name, locale)) continue;
    const same = out.find((o) => normalLocale(o.locale) === normalLocale(locale));
    if (same) same.name += `, ${name}`;
    else out.push({ name, locale });
  }
  return out;
}

/** Of `wanted`, those not in `there` (what `locale -a` listed on the worker). */
export function missingLocales<T extends { locale: string }>(wanted: readonly T[], there: readonly string[]): T[] {
  const have = new Set(there.map(normalLocale));
  return wanted.filter((w) => !have.has(normalLocale(w.locale)));
}
