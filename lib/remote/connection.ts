// One shared ssh connection per worker: found or started here, with its failure explained. Where no folder for its
// socket can be written, or unix sockets are refused (a coding tool's sandbox), there is no shared connection: each
// ssh connects on its own (ControlPath=none), through the sandbox's proxy where that is its only way out.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, lstatSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect as netConnect, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { cacheDir } from '../paths.js';
import { capture, start } from '../process.js';
import { canWrite, tempOwnDir } from '../state/own-dirs.js';
import { type Said, fileFault, openFreshOwnFile, readOwnFile } from '../state/own-file.js';
import { proxyCommandFor } from '../sandbox/ssh-way.js';
import { diagnoseSsh } from './ssh-errors.js';
import { rememberNoAnswer } from './unreachable.js';
import { type Connection, sshControlArgs, sshMasterArgs } from './ssh-args.js';
import { captureRemote, execFailure, sshWorker } from './transport.js';

type Env = Pick<Context, 'home' | 'env'> & Said;

/** Unix socket paths are limited (104 bytes on macOS); ssh adds 17 chars while creating one; our name is 16. */
const SOCKET_DIR_MAX = 103 - 17 - 17;

/** ssh's ControlPath for "no shared connection". */
export const NO_CONTROL = 'none';

/**
 * A private (0700) folder of this user's for the sockets: the runtime dir when it is short enough, else the cache
 * dir, else /tmp, else the temp folder a sandbox leaves writable; undefined when none can be written.
 */
export function controlDir(c: Env): string | undefined {
  const candidates = [
    c.env.XDG_RUNTIME_DIR ? join(c.env.XDG_RUNTIME_DIR, 'sparehand') : undefined,
    join(cacheDir(c), 'ssh'),
    join('/tmp', `sparehand-${userInfo().uid}`),
    join(tempOwnDir(c), 'ssh'),
  ].filter((d): d is string => d !== undefined && d.length <= SOCKET_DIR_MAX);
  for (const dir of new Set(candidates)) {
    // Another user's folder (made first in a shared /tmp) is passed over: the sockets are as good as a key.
    if (!canWrite(dir, { own: true, said: c })) continue;
    const st = statSync(dir);
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    return dir;
  }
  return undefined;
}

/** Folders where a unix socket could not be made (a sandbox's seccomp filter or Seatbelt profile refuses them). */
const socketsRefused = new Set<string>();

/** Whether a unix socket can be listened on and reached in `dir` (asked once per folder and process). */
async function socketsWork(dir: string): Promise<boolean> {
  if (socketsRefused.has(dir)) return false;
  const path = join(dir, `probe-${process.pid}`);
  const ok = await new Promise<boolean>((resolve) => {
    const server = createServer((s) => s.destroy());
    server.once('error', () => resolve(false));
    server.listen(path, () => {
      const s = netConnect(path);
      s.once('connect', () => (s.destroy(), server.close(), resolve(true)));
      s.once('error', () => (server.close(), resolve(false)));
    });
  });
  rmSync(path, { force: true });
  if (!ok) socketsRefused.add(dir);
  return ok;
}

/**
 * ssh finds ~/.ssh from the password database, not $HOME. sparehand follows $HOME: when it differs from the
 * password database's home (a test, a sandbox), ssh is pointed at $HOME/.ssh/config and $HOME/.ssh/known_hosts.
 */
export function connectionFor(c: Env, worker: Worker): Connection {
  // An exec worker has no ssh, so no shared connection: each call starts its program.
  if (worker.exec !== undefined) return { controlPath: NO_CONTROL };
  const own = userInfo().homedir;
  const sshDir = join(c.home, '.ssh');
  const differs = c.home !== own;
  const configFile = differs && existsSync(join(sshDir, 'config')) ? join(sshDir, 'config') : undefined;
  const knownHosts = differs ? join(sshDir, 'known_hosts') : undefined;
  // One socket per way of reaching the worker (ssh's own %C is 40 characters: too long for deep HOMEs).
  const id = createHash('sha256')
    .update(JSON.stringify([worker.destination, worker.port, worker.identity, configFile, knownHosts]))
    .digest('hex')
    .slice(0, 16);
  const dir = controlDir(c);
  const proxyCommand = proxyCommandFor(c, sshWorker(worker), configFile);
  return {
    controlPath: dir === undefined || socketsRefused.has(dir) ? NO_CONTROL : join(dir, id),
    configFile,
    knownHosts,
    ...(proxyCommand === undefined ? {} : { proxyCommand }),
  };
}

/** The error for a connection that failed; one that got no answer is remembered (unreachable.ts). */
function failed(c: Env, worker: Worker, stderr: string): SparehandError {
  const d = diagnoseSsh(stderr, sshWorker(worker));
  if (d.kind === 'timeout' || d.kind === 'unreachable') rememberNoAnswer(c, worker, d.message);
  return new SparehandError('SSH', d.message, { hint: d.hint, cause: new Error(stderr) });
}

/** Reaches the worker once without a shared connection, so that a failure is explained as with one. */
async function checkPlain(c: Env, worker: Worker, conn: Connection, env: NodeJS.ProcessEnv): Promise<void> {
  const r = await captureRemote(env, worker, conn, 'true');
  if (r.code !== 0) throw worker.exec ? execFailure(worker, r.stderr, r.code) : failed(c, worker, r.stderr);
}

/** Runs the background master with its stderr in a file: a persisting master must not hold our pipes open. */
function startMaster(worker: Worker, conn: Connection, env: NodeJS.ProcessEnv, logFile: string): Promise<{ code: number; log: string }> {
  return new Promise((resolve, reject) => {
    // Appended to by ssh and by the tunnel (SPAREHAND_PROXY_LOG) alike: neither writes over the other. Made anew:
    // never through a link planted under its name.
    const fd = openFreshOwnFile({}, logFile);
    if (fd === undefined) return reject(new SparehandError('SSH', `cannot write ${logFile}`));
    // A ControlPersist master sends its ProxyCommand's stderr nowhere: sparehand's tunnel writes its reason here.
    const child = start('ssh', sshMasterArgs(sshWorker(worker), conn), { stdio: ['ignore', 'ignore', fd], env: { ...env, SPAREHAND_PROXY_LOG: logFile } });
    closeSync(fd);
    child.once('error', (e) => reject(new SparehandError('SSH', `cannot start ssh: ${e.message}`, { cause: e })));
    child.once('exit', (code) => resolve({ code: code ?? 255, log: readOwnFile({}, logFile) ?? '' }));
  });
}

/** Makes sure the shared connection to `worker` is up (`verify`: ask it); throws a SparehandError saying why not. Returns ms taken. */
export async function connect(
  c: Env,
  worker: Worker,
  conn: Connection = connectionFor(c, worker),
  opts: { verify?: boolean; timeoutS?: number | undefined } = {},
): Promise<number> {
  const started = performance.now();
  if (opts.timeoutS !== undefined) conn.connectTimeout = opts.timeoutS;
  const env = sshEnv(c);
  if (conn.controlPath === NO_CONTROL) {
    await checkPlain(c, worker, conn, env);
    return performance.now() - started;
  }
  const alive = async () => (await capture('ssh', sshControlArgs(sshWorker(worker), conn, 'check'), { env })).code === 0;
  // A socket that accepts a connection means a master is up: checked in-process, which saves spawning ssh.
  if (!opts.verify && (await socketAccepts(conn.controlPath))) return performance.now() - started;
  if (await alive()) return performance.now() - started;
  // Unix sockets refused here: no shared connection for this run (this conn and every one made after it).
  if (!(await socketsWork(dirname(conn.controlPath)))) {
    conn.controlPath = NO_CONTROL;
    await checkPlain(c, worker, conn, env);
    return performance.now() - started;
  }
  // Two runs starting at once must not both start a master (the second would linger as a plain connection).
  const starting = `${conn.controlPath}.starting`;
  for (;;) {
    try {
      closeSync(openSync(starting, 'wx', 0o600));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    // Left by a run that died, or not one sparehand made (a link planted there, dangling or not): taken away.
    const st = lstatSync(starting, { throwIfNoEntry: false });
    if (st && (fileFault(st) !== undefined || Date.now() - st.mtimeMs > 30_000)) rmSync(starting, { force: true });
    await new Promise((r) => setTimeout(r, 50));
    if (!existsSync(starting) && (await alive())) return performance.now() - started;
  }
  try {
    if (await alive()) return performance.now() - started;
    const r = await startMaster(worker, conn, env, `${conn.controlPath}.log`);
    if (r.code !== 0) throw failed(c, worker, r.log);
  } finally {
    rmSync(starting, { force: true });
  }
  return performance.now() - started;
}

/** Whether something listens on a unix socket (a live ssh master); a stale one is removed. */
function socketAccepts(path: string): Promise<boolean> {
  if (!existsSync(path)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const s = netConnect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') rmSync(path, { force: true });
      resolve(false);
    });
  });
}

/** The environment ssh and rsync run with: the caller's, so agents and SSH_AUTH_SOCK keep working. */
export function sshEnv(c: Env): NodeJS.ProcessEnv {
  return { ...c.env };
}

/**
 * Ends the shared connection to `worker` (`worker remove`), unless `others` (the workers left) reach it the same way:
 * at once when none of this machine's runs use it (`busy` 0); else it takes no new session and ends when ssh's
 * ControlPersist runs out after them (`-O exit` would cut their sessions). What it did; undefined when none was up.
 */
export async function closeConnection(
  c: Env,
  worker: Worker,
  opts: { others: readonly Worker[]; busy: number },
): Promise<'closed' | 'stopped' | { sharedWith: string } | undefined> {
  if (worker.destination === undefined) return undefined;
  const conn = connectionFor(c, worker);
  if (conn.controlPath === NO_CONTROL || !(await socketAccepts(conn.controlPath))) return undefined;
  const same = opts.others.find((w) => w.destination !== undefined && connectionFor(c, w).controlPath === conn.controlPath);
  if (same) return { sharedWith: same.name };
  const op = opts.busy > 0 ? 'stop' : 'exit';
  const r = await capture('ssh', sshControlArgs(sshWorker(worker), conn, op), { env: sshEnv(c) });
  if (r.code !== 0) return undefined;
  if (op === 'exit') rmSync(`${conn.controlPath}.log`, { force: true });
  return op === 'exit' ? 'closed' : 'stopped';
}

/** Stops every shared connection this HOME opened (tests). */
export async function closeConnections(c: Env): Promise<void> {
  const dir = controlDir(c);
  if (dir === undefined) return;
  const sockets = readdirSync(dir).filter((f) => /^[0-9a-f]{16}$/.test(f));
  await Promise.all(sockets.map((s) => capture('ssh', ['-o', `ControlPath=${join(dir, s)}`, '-O', 'exit', 'sparehand-worker'], { env: sshEnv(c) })));
}
