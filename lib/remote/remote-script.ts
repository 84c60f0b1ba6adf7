// The one string sent to the worker's shell: `bash -c WRAPPER` plus quoted arguments (built with shell-quote).
import { quote } from 'shell-quote';

/**
 * Runs on the worker. Installs dependencies when the lock file's hash changed, then runs the command in its
 * own process group with stdin from /dev/null. sparehand keeps ssh's stdin open: a line naming a signal
 * (INT, TERM, HUP, QUIT) is passed to the whole group; end of input (Ctrl-C, sparehand killed, connection
 * lost) stops the group (TERM, then KILL). When the command ends, whatever it left running is killed too.
 * In terminal mode (ssh -tt) the command runs in the foreground of the terminal instead: Ctrl-C reaches it
 * through the terminal and a hang-up (ssh gone) stops it.
 */
export const WRAPPER = String.raw`
mode=$1 root=$2 rel=$3 stamp=$4 hash=$5 deps=$6 cmd=$7
shift 7
exec 3<&0 </dev/null
for kv in "$@"; do export "$kv"; done
cd -- "$root" 2>/dev/null || { echo "sparehand: cannot enter $root on the worker" >&2; exit 125; }
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
if [ -n "$hash" ] && [ "$(cat -- "$stamp" 2>/dev/null)" != "$hash" ]; then
  echo "sparehand: installing dependencies on the worker: $deps" >&2
  if [ "$mode" = tty ]; then bash -c "$deps" >&2 3<&-; else group "$deps" >&2; fi
  st=$?
  if [ "$st" -ne 0 ]; then echo "sparehand: installing dependencies failed on the worker (exit $st)" >&2; exit 125; fi
  printf '%s\n' "$hash" >"$stamp"
fi
cd -- "$rel" 2>/dev/null || { echo "sparehand: cannot enter $rel on the worker" >&2; exit 125; }
if [ "$mode" = tty ]; then exec bash -c "$cmd" <&3 3<&-; fi
group "$cmd"
exit $?
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
    job.tty ? 'tty' : 'pipe', job.root, job.rel, job.stamp, job.depsHash, job.depsCommand, job.command, ...env,
  ]);
}
