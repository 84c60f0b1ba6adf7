// The worker owner's login environment: the PATH (and the rest) that rustup, pyenv, corepack, nvm's profile
// line or Homebrew set up in profile files, which a non-login `ssh host cmd` never reads (Debian's and Ubuntu's
// ~/.bashrc return at once when not interactive).
//
// The cache `<dir>/.login-env` holds what the owner's login shell (their SHELL with -l, so zsh reads
// ~/.zprofile; bash if that fails) exports, NUL-separated. It is made when missing and again when a profile file
// is newer than it, so a run costs no extra process. Two readers share it: the run's worker program (Perl:
// worker/env.pl, which also bounds a profile that hangs) and the probes' bash function below (worker check,
// toolchain versions). Both take the variables but the session's own (PWD, SHLVL, SSH_*), sparehand's and bash
// functions.

/** Files whose change makes the cache stale (`~` is the worker's HOME). */
export const PROFILE_FILES: readonly string[] = [
  '/etc/profile',
  '/etc/profile.d',
  '/etc/zprofile',
  '/etc/zshenv',
  '/etc/paths',
  '/etc/paths.d',
  '~/.profile',
  '~/.bash_profile',
  '~/.bash_login',
  '~/.bashrc',
  '~/.zprofile',
  '~/.zshenv',
  '~/.zlogin',
  '~/.config/fish/config.fish',
];

/** Variables of the session itself, not taken from the cache (a shell pattern, and the same as a Perl regex). */
export const SESSION_VARIABLES = ['PWD', 'OLDPWD', 'SHLVL', '_', 'SSH_*', 'SPAREHAND_*', 'BASH_FUNC_*'] as const;
const sessionPattern = SESSION_VARIABLES.join('|');
export const SESSION_VARIABLES_RE = `^(?:${SESSION_VARIABLES.map((v) => v.replace('*', '.*')).join('|')})$`;

/** The perl that the login shell runs to print its environment into the cache. */
export const DUMP_ENV = 'print map { "$_=$ENV{$_}\\0" } grep { $_ ne "SPAREHAND_DUMP" } keys %ENV';

const bashFiles = PROFILE_FILES.map((f) => (f.startsWith('~/') ? `"$HOME/${f.slice(2)}"` : f)).join(' ');

/** `login_env FILE` for the probes' bash scripts: exports the cached login environment (making the cache if stale). */
export const LOGIN_ENV = String.raw`
login_env() {
  local file=$1 stale= f sh kv name dump
  [ -s "$file" ] || stale=1
  for f in ${bashFiles}; do
    [ "$f" -nt "$file" ] && stale=1
  done
  if [ -n "$stale" ]; then
    dump='${DUMP_ENV}'
    for sh in "$SHELL" bash; do
      [ -n "$sh" ] || continue
      SPAREHAND_DUMP=$dump "$sh" -l -c 'exec perl -e "$SPAREHAND_DUMP"' </dev/null >"$file.$$" 2>/dev/null && [ -s "$file.$$" ] && break
    done
    if [ -s "$file.$$" ]; then mv -f -- "$file.$$" "$file"; else rm -f -- "$file.$$"; fi
  fi
  [ -s "$file" ] || return 0
  while IFS= read -r -d '' kv; do
    IFS='=' read -r name _ <<<"$kv"
    case $name in ${sessionPattern}|''|*[!A-Za-z0-9_]*) ;; *) export "$kv" 2>/dev/null;; esac
  done <"$file"
}
`;
