// The one string sent to the worker's shell: `bash -c WRAPPER` plus quoted arguments (built with shell-quote).
import { quote } from 'shell-quote';

/**
 * Runs on the worker, in the slot's folder. Installs dependencies when the lock file's hash changed, then runs
 * the command under the tree watch (tree-watch.ts), which reports what the command changed in a results block
 * after its output; without a watch (--no-sync-back) the block holds only the exit status. Anything that stops
 * the command from starting (no folder, a failed install, no perl) is reported as a refusal in the same block,
 * so sparehand can tell it from the command's own failure, and exits 125.
 *
 * The command runs in its own process group with stdin from /dev/null. sparehand keeps ssh's stdin open: a line
 * naming a signal (INT, TERM, HUP, QUIT) is passed to the whole group; end of input (Ctrl-C, sparehand killed,
 * connection lost) stops the group (TERM, then KILL). When the command ends, whatever it left running in its
 * group is killed too. In terminal mode (ssh -tt) the command runs in the foreground of the terminal instead:
 * Ctrl-C reaches it through the terminal and a hang-up (ssh gone) stops it; the results block goes to a file.
 *
 * The watch runs the command by calling this same script again (`$BASH_EXECUTION_STRING`) as `sparehand-run`.
 */
export const WRAPPER = String.raw`
group() {
  set -m
  bash -c "$1" 3<&- &
  pid=$!
  set +m
  ( while IFS= read -r sig; do
      case $sig in INT|TERM|HUP|QUIT) kill -s "$sig" -- "-$pid" 2>/dev/null;; esac
    done <&3
    kill -s TERM -- "-$pid" 2>/dev/null; sleep 2; kill -s KILL -- "-$pid" 2>/dev/null ) &
  watcher=$!
  wait "$pid"
  st=$?
  kill -s KILL -- "-$pid" 2>/dev/null
  kill -s KILL "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  return "$st"
}
if [ "$0" = sparehand-run ]; then
  cd -- "$2" || exit 125
  if [ "$1" = tty ]; then bash -c "$3" <&3 3<&-; exit; fi
  group "$3"
  exit
fi
mode=$1 root=$2 rel=$3 cmd=$4 nonce=$5 tree=$6 skip=$7 watch=$8 deps=$9
shift 9
stamps=$1 loginenv=$2 venv=$3 programs=$4
shift 4
exec 3<&0 </dev/null
out=-
results() {
  if [ "$out" = - ]; then printf '\0sparehand-results %s %s\n' "$nonce" "$1"; else printf '\0sparehand-results %s %s\n' "$nonce" "$1" >"$out"; fi
}
refuse() { results "refused $1"; exit 125; }
cd -- "$root" 2>/dev/null || refuse "cannot enter $root on the worker"
top=$PWD
[ "$mode" = tty ] && out=$tree.results
# The worker owner's login environment (the PATH that rustup, pyenv, corepack, nvm, Homebrew set up in their
# profile files): probed with their login shell, kept in a file, probed again when a profile file changes.
if [ -n "$loginenv" ]; then
  stale=
  [ -s "$loginenv" ] || stale=1
  for f in /etc/profile /etc/profile.d /etc/zprofile /etc/zshenv /etc/paths /etc/paths.d "$HOME/.profile" "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.bashrc" "$HOME/.zprofile" "$HOME/.zshenv" "$HOME/.zlogin" "$HOME/.config/fish/config.fish"; do
    [ "$f" -nt "$loginenv" ] && stale=1
  done
  if [ -n "$stale" ]; then
    dump='print map { "$_=$ENV{$_}\0" } grep { $_ ne "SPAREHAND_DUMP" } keys %ENV'
    for sh in "$SHELL" bash; do
      [ -n "$sh" ] || continue
      SPAREHAND_DUMP=$dump "$sh" -l -c 'exec perl -e "$SPAREHAND_DUMP"' </dev/null >"$loginenv.$$" 2>/dev/null && [ -s "$loginenv.$$" ] && break
    done
    if [ -s "$loginenv.$$" ]; then mv -f -- "$loginenv.$$" "$loginenv"; else rm -f -- "$loginenv.$$"; fi
  fi
  if [ -s "$loginenv" ]; then
    while IFS= read -r -d '' kv; do
      case $kv in PWD=*|OLDPWD=*|SHLVL=*|_=*|SSH_*|SPAREHAND_*|BASH_FUNC_*|*[!A-Za-z0-9_]*=*) ;; *) export "$kv" 2>/dev/null;; esac
    done <"$loginenv"
  fi
fi
for kv in "$@"; do export "$kv"; done
# Dependencies, per folder that holds a lock or requirements file: installed again only when it changed.
SPAREHAND_DEPS_TIME=
if [ -n "$deps" ]; then
  start=$EPOCHREALTIME
  [ -n "$start" ] || start=$SECONDS
  while IFS="$(printf '\t')" read -r dir stamp hash install; do
    [ -n "$dir" ] || continue
    stamp=$stamps.$stamp
    [ "$(cat -- "$stamp" 2>/dev/null)" = "$hash" ] && continue
    where=
    [ "$dir" = . ] || where=" in $dir"
    echo "sparehand: installing dependencies on the worker$where: $install" >&2
    cd -- "$dir" 2>/dev/null || refuse "cannot enter $dir on the worker"
    if [ "$mode" = tty ]; then bash -c "$install" >&2 3<&- </dev/null; else group "$install" >&2 </dev/null; fi
    st=$?
    cd -- "$top"
    [ "$st" -eq 0 ] || refuse "installing dependencies failed on the worker (exit $st): $install"
    printf '%s\n' "$hash" >"$stamp"
    end=$EPOCHREALTIME
    [ -n "$end" ] || end=$SECONDS
    SPAREHAND_DEPS_TIME="$start:$end"
  done <<EOF_DEPS
$deps
EOF_DEPS
fi
export SPAREHAND_DEPS_TIME
# The project's .venv, when the caller's shell has it active here.
if [ -n "$venv" ]; then
  export VIRTUAL_ENV="$top/$venv" PATH="$top/$venv/bin:$PATH"
  unset PYTHONHOME
fi
[ -d "$rel" ] || refuse "cannot enter $rel on the worker"
# Every program the command starts that is found here must be found there too.
while IFS= read -r p; do
  [ -n "$p" ] || continue
  case $p in
    /*) [ -x "$p" ] || refuse "$p does not exist on the worker" ;;
    */*) [ -x "$rel/$p" ] || refuse "$p is not in the worker's copy of the project" ;;
    *) command -v -- "$p" >/dev/null 2>&1 || refuse "$p is not on the worker's PATH (its owner's login PATH: $PATH)" ;;
  esac
done <<EOF_PROGRAMS
$programs
EOF_PROGRAMS
if [ -n "$watch" ]; then
  command -v perl >/dev/null || refuse "the worker has no perl, which sparehand needs to find what the command changed (install perl there)"
  exec perl -e "$watch" "$tree" "$skip" "$nonce" "$out" bash -c "$BASH_EXECUTION_STRING" sparehand-run "$mode" "$rel" "$cmd"
fi
bash -c "$BASH_EXECUTION_STRING" sparehand-run "$mode" "$rel" "$cmd"
st=$?
results "ran $st deps=$SPAREHAND_DEPS_TIME"
[ "$out" = - ] && echo "end 0" || echo "end 0" >>"$out"
exit "$st"
`;

export interface RemoteJob {
  tty: boolean;
  /** Slot folder on the worker (relative to the login folder, or absolute). */
  root: string;
  /** Working folder relative to the project root ('.' for the root). */
  rel: string;
  command: string;
  /** Names this run's results block. */
  nonce: string;
  /** The tree watch's record of the slot (relative to root); in terminal mode the results go beside it. */
  tree: string;
  /** What the watch skips (sync-rules.ts skipArgument). */
  skip: string;
  /** The tree watch program, or '' to bring nothing back (--no-sync-back). */
  watch: string;
  /** Dependency installs (lib/run/deps.ts), in order. */
  deps: ReadonlyArray<{ dir: string; hash: string; command: string }>;
  /** Stamp files, one per folder with dependencies, are this path plus `.<the folder, / as %>` (relative to root). */
  stamps: string;
  /** The cached login environment of the worker's owner (relative to root), or '' not to use one. */
  loginEnv: string;
  /** The project's .venv to activate (relative to root), or ''. */
  venv: string;
  /** Programs the command starts that are found here: each must be found there too. */
  programs: readonly string[];
  env: Readonly<Record<string, string>>;
}

/**
 * The remote command line: every value is one quoted word, so the worker's shell cannot reinterpret it.
 * `env -u SSH_CLIENT -u SSH2_CLIENT`: bash reads ~/.bashrc again in any shell it thinks sshd started (SSH_CLIENT
 * set, stdin a socket), and the login shell has already read it; on a worker with pyenv or nvm in ~/.bashrc that
 * second read cost ~80 ms per run (bench/run.js).
 */
export function remoteCommand(job: RemoteJob): string {
  const env = Object.entries(job.env).map(([k, v]) => `${k}=${v}`);
  const deps = job.deps.map((d) => `${d.dir}\t${d.dir.replaceAll('/', '%')}\t${d.hash}\t${d.command}`).join('\n');
  return quote([
    'env', '-u', 'SSH_CLIENT', '-u', 'SSH2_CLIENT',
    'bash', '-c', WRAPPER, 'sparehand',
    job.tty ? 'tty' : 'pipe', job.root, job.rel, job.command, job.nonce, job.tree, job.skip, job.watch, deps,
    job.stamps, job.loginEnv, job.venv, job.programs.join('\n'), ...env,
  ]);
}
