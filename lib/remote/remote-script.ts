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
mode=$1 root=$2 rel=$3 stamp=$4 hash=$5 deps=$6 cmd=$7 nonce=$8 tree=$9
shift 9
skip=$1 watch=$2
shift 2
exec 3<&0 </dev/null
for kv in "$@"; do export "$kv"; done
out=-
results() {
  if [ "$out" = - ]; then printf '\0sparehand-results %s %s\n' "$nonce" "$1"; else printf '\0sparehand-results %s %s\n' "$nonce" "$1" >"$out"; fi
}
refuse() { results "refused $1"; exit 125; }
cd -- "$root" 2>/dev/null || refuse "cannot enter $root on the worker"
[ "$mode" = tty ] && out=$tree.results
if [ -n "$hash" ] && [ "$(cat -- "$stamp" 2>/dev/null)" != "$hash" ]; then
  echo "sparehand: installing dependencies on the worker: $deps" >&2
  if [ "$mode" = tty ]; then bash -c "$deps" >&2 3<&-; else group "$deps" >&2; fi
  st=$?
  [ "$st" -eq 0 ] || refuse "installing dependencies failed on the worker (exit $st): $deps"
  printf '%s\n' "$hash" >"$stamp"
fi
[ -d "$rel" ] || refuse "cannot enter $rel on the worker"
if [ -n "$watch" ]; then
  command -v perl >/dev/null || refuse "the worker has no perl, which sparehand needs to find what the command changed (install perl there)"
  exec perl -e "$watch" "$tree" "$skip" "$nonce" "$out" bash -c "$BASH_EXECUTION_STRING" sparehand-run "$mode" "$rel" "$cmd"
fi
bash -c "$BASH_EXECUTION_STRING" sparehand-run "$mode" "$rel" "$cmd"
st=$?
results "ran $st"
[ "$out" = - ] && echo "end 0" || echo "end 0" >>"$out"
exit "$st"
`;

export interface RemoteJob {
  tty: boolean;
  /** Slot folder on the worker (relative to the login folder, or absolute). */
  root: string;
  /** Working folder relative to the project root ('.' for the root). */
  rel: string;
  /** Stamp file holding the hash of the last installed lock file (relative to root). */
  stamp: string;
  /** Lock file hash; empty when there is nothing to install. */
  depsHash: string;
  depsCommand: string;
  command: string;
  /** Names this run's results block. */
  nonce: string;
  /** The tree watch's record of the slot (relative to root); in terminal mode the results go beside it. */
  tree: string;
  /** Paths the watch skips (sync-rules.ts). */
  skip: string;
  /** The tree watch program, or '' to bring nothing back (--no-sync-back). */
  watch: string;
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
  return quote([
    'env', '-u', 'SSH_CLIENT', '-u', 'SSH2_CLIENT',
    'bash', '-c', WRAPPER, 'sparehand',
    job.tty ? 'tty' : 'pipe', job.root, job.rel, job.stamp, job.depsHash, job.depsCommand, job.command,
    job.nonce, job.tree, job.skip, job.watch, ...env,
  ]);
}
