// The worker program's parts: the `.pl` files beside this module (lib/perl-file.ts), and the one part made here, the
// settings they read of sparehand's own (the login shell's profiles and bound, the copy watcher's program).
import { perlFile } from '../../perl-file.js';
import { DUMP_ENV, PROFILE_FILES, SESSION_VARIABLES_RE } from '../login-env.js';

/** Seconds the owner's login shell may take to print its environment (env.pl). */
export const LOGIN_ENV_SECONDS = 15;

export const IO_PL = perlFile(new URL('./io.pl', import.meta.url));
export const FIND_PL = perlFile(new URL('./find.pl', import.meta.url));
export const CLAIM_PL = perlFile(new URL('./claim.pl', import.meta.url));
export const ENV_PL = perlFile(new URL('./env.pl', import.meta.url));
export const GROUP_PL = perlFile(new URL('./group.pl', import.meta.url));
export const SERVICES_PL = perlFile(new URL('./services.pl', import.meta.url));
export const DEPS_PL = perlFile(new URL('./deps.pl', import.meta.url));
export const REPORT_PL = perlFile(new URL('./report.pl', import.meta.url));
export const WATCH_PL = perlFile(new URL('./watch.pl', import.meta.url));
export const PLATFORM_PL = perlFile(new URL('./platform.pl', import.meta.url));
export const MAIN_PL = perlFile(new URL('./main.pl', import.meta.url));
/** The copy's watcher, a program of its own (watch.pl execs it as `perl -e`, so it holds none of the run's handles). */
export const WATCHER_PL = perlFile(new URL('./watcher.pl', import.meta.url));

/** A Perl string literal of `s`, in single quotes (where only `\` and `'` are special). */
const perlString = (s: string): string => `'${s.replace(/[\\']/g, '\\$&')}'`;

/** What the parts read of sparehand's own settings. */
export const SETTINGS_PL = [
  '# line 1 "settings (lib/remote/worker/parts.ts)"',
  `our @login_profiles = (${PROFILE_FILES.map(perlString).join(', ')});`,
  `our $login_dump = ${perlString(DUMP_ENV)};`,
  `our $login_env_seconds = ${LOGIN_ENV_SECONDS};`,
  `our $session_variables = ${perlString(SESSION_VARIABLES_RE)};`,
  `our $watcher_pl = pack('H*', '${Buffer.from(WATCHER_PL).toString('hex')}');`,
  '',
].join('\n');

/** The probe `worker check` runs with `perl -e`: one line, `platform=OS ARCH LIBC`. */
export const PLATFORM_PROBE = `${PLATFORM_PL}\nprint 'platform=', platform_line(), "\\n";\n`;
