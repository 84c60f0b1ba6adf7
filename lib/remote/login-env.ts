// The worker owner's login environment, as a bash function the remote scripts share: the PATH (and the rest)
// that rustup, pyenv, corepack, nvm's profile line or Homebrew set up in profile files, which a non-login
// `ssh host cmd` never reads (Debian's and Ubuntu's ~/.bashrc return at once when not interactive).
//
// `login_env FILE`: FILE caches what the owner's login shell (their SHELL with -l, so zsh reads ~/.zprofile;
// bash if that fails) exports. It is made when missing and again when a profile file is newer than it, so a
// run costs no extra process. The variables are exported into the calling script, but for the session's own
// (PWD, SHLVL, SSH_*), sparehand's, and bash functions.
export const LOGIN_ENV = String.raw`
login_env() {
  local file=$1 stale= f sh kv name dump
  [ -s "$file" ] || stale=1
  for f in /etc/profile /etc/profile.d /etc/zprofile /etc/zshenv /etc/paths /etc/paths.d "$HOME/.profile" "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.bashrc" "$HOME/.zprofile" "$HOME/.zshenv" "$HOME/.zlogin" "$HOME/.config/fish/config.fish"; do
    [ "$f" -nt "$file" ] && stale=1
  done
  if [ -n "$stale" ]; then
    dump='print map { "$_=$ENV{$_}\0" } grep { $_ ne "SPAREHAND_DUMP" } keys %ENV'
    for sh in "$SHELL" bash; do
      [ -n "$sh" ] || continue
      SPAREHAND_DUMP=$dump "$sh" -l -c 'exec perl -e "$SPAREHAND_DUMP"' </dev/null >"$file.$$" 2>/dev/null && [ -s "$file.$$" ] && break
    done
    if [ -s "$file.$$" ]; then mv -f -- "$file.$$" "$file"; else rm -f -- "$file.$$"; fi
  fi
  [ -s "$file" ] || return 0
  while IFS= read -r -d '' kv; do
    IFS='=' read -r name _ <<<"$kv"
    case $name in PWD|OLDPWD|SHLVL|_|SSH_*|SPAREHAND_*|BASH_FUNC_*|''|*[!A-Za-z0-9_]*) ;; *) export "$kv" 2>/dev/null;; esac
  done <"$file"
}
`;
