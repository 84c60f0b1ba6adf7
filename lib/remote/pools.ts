// A Kubernetes pool (`worker add NAME --kubernetes --namespace NS --selector LABELS`): the pods the selector matches
// now, looked up with one `kubectl get pods` each time the workers are needed, each one an exec worker
// (`kubectl exec -i POD --`) named `NAME.POD`, with the pool's --dir and slots (slots per pod).
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { SparehandError } from '../errors.js';
import { capture } from '../process.js';
import { execArgv } from './exec-engines.js';

type Pool = NonNullable<Worker['kubernetes']>;

/** The `kubectl get pods` that lists a pool's running pods, one name a line. */
export function podListArgs(pool: Pool): string[] {
  return [
    ...(pool.context === undefined ? [] : ['--context', pool.context]),
    'get',
    'pods',
    '-n',
    pool.namespace,
    '-l',
    pool.selector,
    '--field-selector=status.phase=Running',
    '-o',
    'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}',
  ];
}

/** The pool's pods as workers (names that are no pod name are dropped: they come from the API server). */
export function podWorkers(w: Worker & { kubernetes: Pool }, listed: string): Worker[] {
  const k = w.kubernetes;
  const pods = listed
    .split('\n')
    .map((l) => l.trim())
    .filter((p) => /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(p));
  return pods.map((pod) => ({
    name: `${w.name}.${pod}`,
    exec: execArgv({ kubectl: pod, namespace: k.namespace, container: k.container, context: k.context }) as string[],
    ...(w.dir === undefined ? {} : { dir: w.dir }),
    ...(w.slots === undefined ? {} : { slots: w.slots }),
  }));
}

export interface Expanded {
  workers: Worker[];
  /** The pools that could not be listed, or matched no running pod, with why. */
  failed: Array<{ pool: Worker; error: SparehandError }>;
}

/** `workers` with each pool replaced by its running pods (the others as they are), in order. */
export async function expandPools(ctx: Pick<Context, 'env'>, workers: readonly Worker[]): Promise<Expanded> {
  const out: Expanded = { workers: [], failed: [] };
  const listed = await Promise.all(
    workers.map((w) => (w.kubernetes ? capture('kubectl', podListArgs(w.kubernetes), { env: { ...ctx.env } }).catch((e: unknown) => e as Error) : undefined)),
  );
  workers.forEach((w, i) => {
    const r = listed[i];
    if (!w.kubernetes || r === undefined) {
      out.workers.push(w);
      return;
    }
    const where = `pool "${w.name}" (pods -l ${w.kubernetes.selector} in ${w.kubernetes.namespace})`;
    const said =
      r instanceof Error
        ? r.message
        : r.code !== 0
          ? (r.stderr
              .split('\n')
              .map((l) => l.trim())
              .filter(Boolean)
              .at(-1) ?? `kubectl exit ${r.code}`)
          : undefined;
    const pods = said === undefined && !(r instanceof Error) ? podWorkers(w as Worker & { kubernetes: Pool }, r.stdout) : [];
    if (pods.length > 0) {
      out.workers.push(...pods);
      return;
    }
    const why = said === undefined ? 'no running pod matches' : `its pods could not be listed: ${said}`;
    out.failed.push({
      pool: w,
      error: new SparehandError('WORKER', `${where}: ${why}`, { hint: `try \`kubectl ${podListArgs(w.kubernetes).slice(0, -2).join(' ')}\` by hand` }),
    });
  });
  return out;
}
