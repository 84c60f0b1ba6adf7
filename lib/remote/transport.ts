// How sparehand reaches a worker's shell, for every remote call and every rsync: ssh (its own config applies, so a
// ProxyCommand or ProxyJump alias is a dev box behind a jump host), or `exec`: any program that runs a command in a
// container or pod with its stdin and stdout (`podman exec -i CTR`, `kubectl exec -i POD --`), as krsync does.
// The data plane is one: the worker program and rsync run over either.
import { quote } from 'shell-quote';
import type { SshWorker, Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { type ProcResult, capture } from '../process.js';
import { resolvedHost } from '../sandbox/ssh-way.js';
import type { UpPlan } from './rsync-flavour.js';
import { workerWhere } from './worker-where.js';
import { type Connection, rsyncRsh, rsyncRshBlanks, rsyncWord, sshArgs } from './ssh-args.js';

/** The transport as the reports show it. */
export type TransportInfo =
  | { kind: 'ssh'; destination: string; proxy?: string }
  | { kind: 'exec'; exec: string[] }
  | { kind: 'kubernetes'; namespace: string; selector: string };

export { workerWhere };

/** The worker as ssh reaches it; an exec worker here is sparehand's own mistake. */
export function sshWorker(worker: Worker): SshWorker {
  if (worker.destination === undefined) throw new SparehandError('INTERNAL', `worker "${worker.name}" is an exec worker, not an ssh one`);
  return worker as SshWorker;
}

/**
 * An exec session starts where the container's working folder is; ssh starts in the login folder, and every
 * `~/`-less path sparehand gives is relative to it (ssh-args.ts remotePath): an exec command goes there first.
 */
const TO_HOME = 'cd 2>/dev/null;';

/** The argv (program first) that runs one remote command string there (its shell parses it), optionally with a terminal. */
export function remoteArgv(worker: Worker, conn: Connection, remote: string, opts: { tty?: boolean } = {}): string[] {
  if (worker.exec !== undefined) return [...worker.exec, 'sh', '-c', `${TO_HOME} ${remote}`];
  return ['ssh', ...sshArgs(sshWorker(worker), conn, remote, opts)];
}

/** Whether a command there can have a terminal (exec: no; its program's `-t` is not sparehand's to add). */
export const hasTerminal = (worker: Worker): boolean => worker.exec === undefined;

/** Runs one remote command string there and collects its output. */
export function captureRemote(env: NodeJS.ProcessEnv, worker: Worker, conn: Connection, remote: string): Promise<ProcResult> {
  const [file, ...args] = remoteArgv(worker, conn, remote);
  return capture(file as string, args, { env });
}

/**
 * sh script (one word without blanks, for openrsync's splitter too) that rsync starts as `SCRIPT HOST CMD...`:
 * it drops the host and runs `$SPAREHAND_EXEC sh -c "CMD..."`, the command's words joined as ssh joins them.
 */
const EXEC_RSH = `shift;eval\${IFS}exec\${IFS}"$SPAREHAND_EXEC"\${IFS}sh\${IFS}-c\${IFS}'"cd;$*"'`;

export interface RsyncShell {
  /** rsync's `-e`. */
  rsh: string;
  /** Added to rsync's environment. */
  env: Record<string, string>;
  /** The `HOST` of rsync's `HOST:PATH`. */
  host: string;
  /** More rsync options the transport needs. */
  extra: string[];
}

/** rsync's way to the worker for `plan`'s rsync (GNU's quoted `-e`, or openrsync's blank-split one). */
export function rsyncShell(worker: Worker, conn: Connection, plan: UpPlan): RsyncShell {
  if (worker.exec !== undefined) {
    const words = ['sh', '-c', EXEC_RSH, 'sparehand-rsh'];
    const rsh = plan.rsh === 'quoted' ? words.map(rsyncWord).join(' ') : words.join(' ');
    // The exec programs (kubectl, podman) are not ssh: rsync's non-blocking pipes are ssh's preference only.
    return { rsh, env: { SPAREHAND_EXEC: quote(worker.exec) }, host: 'sparehand', extra: plan.rsh === 'quoted' ? ['--blocking-io'] : [] };
  }
  const w = sshWorker(worker);
  const { rsh, env } = plan.rsh === 'quoted' ? { rsh: rsyncRsh(w, conn), env: {} } : rsyncRshBlanks(w, conn);
  return { rsh, env, host: w.destination, extra: [] };
}

/** Why an exec worker could not be reached, from what its program said last (kubectl logs its retries before it). */
export function execFailure(worker: Worker, stderr: string, code: number): SparehandError {
  const first =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? `exit ${code}`;
  const byHand = quote([...(worker.exec ?? []), 'true']);
  const missing = code === 127 && /not found|No such file/i.test(stderr) ? ` (is ${worker.exec?.[0]} installed here?)` : '';
  return new SparehandError('WORKER', `worker "${worker.name}" (${workerWhere(worker)}) could not be reached: ${first}${missing}`, {
    hint: `is the container or pod running? try \`${byHand}\` by hand`,
  });
}

/** What reaches `worker`: for ssh, its destination and the ProxyCommand or ProxyJump ssh's config gives it. */
export function transportInfo(ctx: Pick<Context, 'env'>, worker: Worker, conn: Connection): TransportInfo {
  if (worker.exec !== undefined) return { kind: 'exec', exec: worker.exec };
  if (worker.kubernetes !== undefined) return { kind: 'kubernetes', namespace: worker.kubernetes.namespace, selector: worker.kubernetes.selector };
  const w = sshWorker(worker);
  const proxy = resolvedHost(w, ctx.env, conn.configFile).proxy;
  return { kind: 'ssh', destination: w.destination, ...(proxy ? { proxy } : {}) };
}

/** One line for people: `ssh host`, `ssh alias through ProxyCommand …`, `exec podman exec -i build`. */
export function transportLabel(t: TransportInfo): string {
  if (t.kind === 'exec') return `exec ${quote(t.exec)}`;
  if (t.kind === 'kubernetes') return `kubernetes pods -l ${t.selector} in ${t.namespace}`;
  return `ssh ${t.destination}${t.proxy ? ` through ${t.proxy}` : ''}`;
}
