// The one string sent to the worker's shell: `bash -c WRAPPER` plus quoted arguments (built with shell-quote).
import { quote } from 'shell-quote';
import { LOGIN_ENV } from './login-env.js';
import { SLOT_CLAIM } from './worker-slots.js';

/**
 * Runs on the worker, in the run's copy of the project. Claims a slot first (worker-slots.ts). Installs dependencies when the lock file's hash changed, then runs
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
export const WRAPPER = String.raw`${LOGIN_ENV}
group() {
  set -m
  bash -c "$1" 3<&- 9>&- &
  pid=$!
  set +m
  ( while IFS= read -r sig; do
      case $sig in INT|TERM|HUP|QUIT) kill -s "$sig" -- "-$pid" 2>/dev/null;; esac
    done <&3
    kill -s TERM -- "-$pid" 2>/dev/null; sleep 2; kill -s KILL -- "-$pid" 2>/dev/null ) 9>&- &
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
  if [ "$1" = tty ]; then bash -c "$3" <&3 3<&- 9>&-; exit; fi
  group "$3"
  exit
fi
if [ "$0" = sparehand ]; then
  # Claim a slot on the worker (the lock stays on fd 9 for this session), then go on as sparehand-claimed.
  # In terminal mode the slot is held by another session (mode hold).
  exec 3<&0 </dev/null
  mkdir -p -- "$2/.slots.d" 2>/dev/null
  if [ "$1" = tty ]; then exec bash -c "$BASH_EXECUTION_STRING" sparehand-claimed '' "$@"; fi
  if ! command -v perl >/dev/null; then
    printf '\0sparehand-claim %s refused the worker has no perl, which sparehand needs to count slots and find what the command changed (install perl there)\n' "$8"
    exit 125
  fi
  exec 9>/dev/null
  exec perl -e "$SPAREHAND_CLAIM" "$2" "$4" "$8" "$SPAREHAND_RECORD" "$BASH_EXECUTION_STRING" "$@"
fi
shift
mode=$1 wdir=$2 key=$3 folder=$5 rel=$6 cmd=$7 nonce=$8 skip=$9
shift 9
watch=$1 deps=$2 venv=$3 programs=$4
shift 4
unset SPAREHAND_CLAIM SPAREHAND_RECORD
if [ "$mode" = hold ]; then
  # Holds the slot for a run in terminal mode until sparehand closes this session.
  while read -r _ <&3; do :; done
  exit 0
fi
root=$wdir/$key/$folder tree=../$folder.tree stamps=../$folder.deps
out=-
results() {
  if [ "$out" = - ]; then printf '\0sparehand-results %s %s\n' "$nonce" "$1"; else printf '\0sparehand-results %s %s\n' "$nonce" "$1" >"$out"; fi
}
refuse() { results "refused $1"; exit 125; }
login_env "$wdir/.login-env"
if [ "$mode" = pipe ]; then
  # sparehand sends the project to the copy's folder (while the slot was being claimed), then says go.
  IFS= read -r go <&3 || exit 0
  [ "$go" = go ] || exit 0
fi
cd -- "$root" 2>/dev/null || refuse "cannot enter $root on the worker"
top=$PWD
[ "$mode" = tty ] && out=$tree.results
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
  /** pipe: claim a slot, wait for "go", run; hold: claim a slot and hold it (for a terminal run); tty: just run. */
  mode: 'pipe' | 'hold' | 'tty';
  /** The worker's folder for project copies (relative to the login folder, or absolute). */
  dir: string;
  /** The project's folder in it (lib/run/project.ts projectKey); its copies are `<dir>/<key>/<n>`. */
  key: string;
  /** Slots the worker has when it has not said (its `<dir>/.slots` wins: worker-slots.ts). */
  slots: number;
  /** Which of the project's copies the run uses: `<dir>/<key>/<folder>` (lib/run/folders.ts). */
  folder: number;
  /** Who runs what, recorded with the slot for `sparehand status` (worker-slots.ts runRecord). */
  record: string;
  /** Working folder relative to the project root ('.' for the root). */
  rel: string;
  command: string;
  /** Names this run's claim line and results block. */
  nonce: string;
  /** What the watch skips (sync-rules.ts skipArgument). */
  skip: string;
  /** The tree watch program, or '' to bring nothing back (--no-sync-back). */
  watch: string;
  /** Dependency installs (lib/run/deps.ts), in order. */
  deps: ReadonlyArray<{ dir: string; hash: string; command: string }>;
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
    'env', '-u', 'SSH_CLIENT', '-u', 'SSH2_CLIENT', `SPAREHAND_CLAIM=${SLOT_CLAIM}`, `SPAREHAND_RECORD=${job.record}`,
    'bash', '-c', WRAPPER, 'sparehand',
    job.mode, job.dir, job.key, String(job.slots), String(job.folder), job.rel, job.command, job.nonce, job.skip,
    job.watch, deps, job.venv, job.programs.join('\n'), ...env,
  ]);
}
