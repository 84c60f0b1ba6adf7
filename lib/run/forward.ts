// The run's forwards of this machine's services (lib/run/services.ts): added to the run's own ssh connection once
// it is up, and, when the worker cannot make one, why: the port is taken there, or its sshd allows no forwarding.
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { capture } from '../process.js';
import { type Forward, remoteForwardArgs } from './services.js';
import { sshEnv } from '../remote/connection.js';
import { type Connection, sshForwardArgs, sshThroughArgs } from '../remote/ssh-args.js';

/**
 * A socket for the run's own connection, beside the shared ones (their folder is private and short enough);
 * undefined where there is none (unix sockets refused here).
 */
export function ownSocket(conn: Connection): string | undefined {
  if (conn.controlPath === 'none') return undefined;
  return join(dirname(conn.controlPath), `run-${randomBytes(4).toString('hex')}`);
}

/** Exit 0 when something accepts a connection on the worker's 127.0.0.1:PORT (perl is there: sparehand needs it). */
const PROBE = `perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0], Timeout => 3) ? 0 : 1)'`;

const ASK_MS = 10_000;

/**
 * Adds the run's forwards to its own connection (`socket`). Undefined when all are made; else an error naming the
 * port and why (asked of the worker through the same connection).
 */
export async function addForwards(
  ctx: Pick<Context, 'home' | 'env'>,
  worker: Worker,
  socket: string,
  forwards: readonly Forward[],
): Promise<SparehandError | undefined> {
  const env = sshEnv(ctx);
  // Bounded: a connection gone silent must not hold the run (ServerAlive would take 45 s to see it).
  const r = await capture('ssh', sshForwardArgs(socket, remoteForwardArgs(forwards)), { env, timeoutMs: ASK_MS });
  if (r.code === 0) return undefined;
  const port = Number(/listen port (\d+)/.exec(r.stderr)?.[1]);
  const f = forwards.find((x) => x.port === port);
  if (!f) {
    const why = r.timedOut ? `no answer within ${ASK_MS / 1000}s` : r.stderr.trim().split('\n').at(-1) || `ssh exit ${r.code}`;
    return new SparehandError('WORKER', `this machine's services could not be forwarded to ${worker.name}: ${why}`, {
      hint: 'see `sparehand help run.md`, "Services on this machine"',
    });
  }
  const ask = async (command: string) => capture('ssh', sshThroughArgs(socket, command), { env, timeoutMs: ASK_MS });
  const inUse = (await ask(`${PROBE} ${quote([String(port)])}`)).code === 0;
  const what = `this machine's ${f.host}:${port}`;
  if (inUse)
    return new SparehandError('WORKER', `port ${port} is in use on ${worker.name}: ${what} cannot be forwarded there`, {
      hint: `stop what listens on 127.0.0.1:${port} there (another run forwarding it counts)`,
    });
  // Below 1024 only root may listen (the worker's user, as a worker's owner, is not): no sshd setting changes that.
  if (port < PRIVILEGED_BELOW && (await ask('id -u')).stdout.trim() !== '0')
    return new SparehandError('WORKER', `port ${port} cannot be forwarded to ${worker.name}: below ${PRIVILEGED_BELOW}, only root may listen there`, {
      hint: `run the service here on a port of ${PRIVILEGED_BELOW} or above and name that one in "services"`,
    });
  return new SparehandError('WORKER', `${worker.name} refused to forward port ${port} (${what})`, {
    hint: "its sshd must allow it: `AllowTcpForwarding yes` (or `remote`) in the worker's sshd_config",
  });
}

/** Ports below this are privileged on Linux and macOS: only root may listen on them. */
const PRIVILEGED_BELOW = 1024;
