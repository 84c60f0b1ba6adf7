// ssh and rsync argument arrays: pure functions of a worker and a connection, tested as data.
import { quote } from 'shell-quote';
import type { SshWorker as Worker } from '../config.js';

/** Where ssh looks for things; derived from the context so that a test HOME is honoured (see docs/workers.md). */
export interface Connection {
  /** Socket of the shared connection (ControlPath). */
  controlPath: string;
  /** `-F` file when sparehand's HOME is not the home ssh itself would use, else undefined. */
  configFile?: string | undefined;
  /** UserKnownHostsFile when sparehand's HOME is not ssh's own home, else undefined. */
  knownHosts?: string | undefined;
  /** Seconds ssh waits for the TCP connection and the handshake. */
  connectTimeout?: number;
  /** How ssh gets out of a coding tool's sandbox: through its proxy (lib/sandbox/ssh-way.ts). */
  proxyCommand?: string;
}

export const CONTROL_PERSIST = '10m';

/**
 * Options shared by every ssh sparehand starts: batch mode, short connect timeout, the shared connection, and
 * nothing of this machine's forwarded to the worker (no agent, X11 or ports, whatever ~/.ssh/config says; a worker
 * with `forwardAgent: true` gets the agent).
 */
export function sshOptions(worker: Worker, conn: Connection, master: 'yes' | 'no' = 'no', persist = CONTROL_PERSIST): string[] {
  const args: string[] = [];
  if (conn.configFile !== undefined) args.push('-F', conn.configFile);
  args.push(
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${conn.connectTimeout ?? 5}`,
    '-o',
    `ControlMaster=${master}`,
    '-o',
    `ControlPath=${conn.controlPath}`,
    '-o',
    `ControlPersist=${persist}`,
    '-o',
    'ServerAliveInterval=15',
    '-o',
    'ServerAliveCountMax=3',
    '-o',
    `ForwardAgent=${worker.forwardAgent ? 'yes' : 'no'}`,
    '-o',
    'ForwardX11=no',
    '-o',
    'ClearAllForwardings=yes',
  );
  if (conn.knownHosts !== undefined) args.push('-o', `UserKnownHostsFile=${conn.knownHosts}`);
  if (conn.proxyCommand !== undefined) args.push('-o', `ProxyCommand=${conn.proxyCommand}`);
  if (worker.port !== undefined) args.push('-p', String(worker.port));
  if (worker.identity !== undefined) args.push('-i', worker.identity, '-o', 'IdentitiesOnly=yes');
  return args;
}

/** `ssh … DEST REMOTE`: one remote command string (the remote shell parses it), optionally with a terminal. */
export function sshArgs(worker: Worker, conn: Connection, remote: string, opts: { tty?: boolean } = {}): string[] {
  // -q with a terminal: ssh would end every run with "Shared connection to … closed." on it.
  return [...sshOptions(worker, conn), ...(opts.tty ? ['-tt', '-q'] : ['-T']), '--', worker.destination, remote];
}

/**
 * A run's session that forwards services: a connection of its own, never the shared one (a forward asked through
 * that belongs to its master and outlives the run). It is a master on `socket` (a socket of this run's, used only
 * by sshForwardArgs) that does not persist: it ends with the session, and its forwards with it.
 */
export function sshOwnSessionArgs(worker: Worker, conn: Connection, socket: string, remote: string): string[] {
  return [...sshOptions(worker, { ...conn, controlPath: socket }, 'yes', 'no'), '-T', '--', worker.destination, remote];
}

/**
 * Asks the run's own master (`socket`) to add `forwards` (`-R` arguments). The master was started with
 * ClearAllForwardings, so no forward of ~/.ssh/config is on it; `-F /dev/null`: none is added by this request
 * either. Exit 0 when the worker made every one.
 */
export function sshForwardArgs(socket: string, forwards: readonly string[]): string[] {
  return ['-F', '/dev/null', '-o', `ControlPath=${socket}`, '-O', 'forward', ...forwards, 'sparehand-worker'];
}

/** Runs `remote` through the run's own master (`socket`): no new connection, nothing of ~/.ssh/config. */
export function sshThroughArgs(socket: string, remote: string): string[] {
  return ['-F', '/dev/null', '-o', `ControlPath=${socket}`, '-T', 'sparehand-worker', remote];
}

/** Starts the shared connection in the background (-f) once authenticated; nothing is run (-N). */
export function sshMasterArgs(worker: Worker, conn: Connection): string[] {
  return [...sshOptions(worker, conn, 'yes'), '-f', '-N', '--', worker.destination];
}

/** Asks an existing shared connection whether it is alive (`-O check`), to end (`-O exit`), or to take no new session (`-O stop`). */
export function sshControlArgs(worker: Worker, conn: Connection, op: 'check' | 'exit' | 'stop'): string[] {
  return [...sshOptions(worker, conn), '-O', op, '--', worker.destination];
}

/** rsync's `-e` value for GNU rsync, which splits it itself (blanks, quotes): each word is quoted for that splitter. */
export function rsyncRsh(worker: Worker, conn: Connection): string {
  return ['ssh', ...sshOptions(worker, conn)].map(rsyncWord).join(' ');
}

/** Quotes one word for GNU rsync's command-line splitter (single quotes; a quote itself goes in double quotes). */
export function rsyncWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return (
    word
      .split("'")
      .map((part) => (part === '' ? '' : `'${part}'`))
      .join(`"'"`) || "''"
  );
}

/**
 * sh script (one word without blanks) that runs the ssh command line held in `$SPAREHAND_RSH` with rsync's
 * arguments after it: `${IFS}` splits the script's own words, `"$SPAREHAND_RSH"` stays one until eval reads it.
 */
const RSH_FROM_ENV = `eval\${IFS}exec\${IFS}"$SPAREHAND_RSH"\${IFS}'"$@"'`;

/**
 * rsync's `-e` value for openrsync, which splits it on blanks and reads no quotes (fargs.c): the words as they
 * are; when one holds a blank (a key or a socket under a folder with a space), the ssh command goes through
 * the environment instead, and `env` must be added to rsync's.
 */
export function rsyncRshBlanks(worker: Worker, conn: Connection): { rsh: string; env: Record<string, string> } {
  const words = ['ssh', ...sshOptions(worker, conn)];
  if (!words.some((w) => /[ \t\n]/.test(w))) return { rsh: words.join(' '), env: {} };
  return { rsh: `sh -c ${RSH_FROM_ENV} sparehand-rsh`, env: { SPAREHAND_RSH: quote(words) } };
}

/** A path on the worker for rsync: `~/x` is relative to the login folder, which is where ssh starts. */
export function remotePath(path: string): string {
  if (path === '~') return '.';
  return path.startsWith('~/') ? path.slice(2) || '.' : path;
}

/**
 * `--rsync-path`: makes the destination and enters it before starting `program` there, so a first sync needs no
 * extra round trip and the destination argument is just `.`. Every rsync passes this string to the worker's
 * shell as it is; the folder is quoted here, so no rsync needs --protect-args (which only GNU rsync 3 has).
 */
export function rsyncPathMaking(dir: string, program = 'rsync'): string {
  return `mkdir -p -- ${quote([dir])} && cd -- ${quote([dir])} && ${quote([program])}`;
}
