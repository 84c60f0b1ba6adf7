// `sparehand worker add NAME DESTINATION|--exec …|--kubernetes …`: a worker (or a pool of pods), and what it has.
import { InvalidArgumentError } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Worker } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { differenceNote } from '../platform/difference.js';
import { platformHere } from '../platform/here.js';
import { connect } from '../remote/connection.js';
import { type ExecChoice, execArgv, kubernetesPool } from '../remote/exec-engines.js';
import { lookForWorkerPlatform } from '../remote/platform-found.js';
import { expandPools } from '../remote/pools.js';
import { rsyncLabel, rsyncNotes } from '../remote/rsync-flavour.js';
import { lookForWorkerRsync } from '../remote/rsync-found.js';
import { workerStatus } from '../remote/status.js';
import { workerWhere } from '../remote/transport.js';
import { addWorker } from '../remote/workers.js';
import type { SparehandCommand } from './command.js';

/** A whole number; its range is the config schema's to check (and name). */
const int = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
};

/**
 * The `--identity` to store: a file that is there (ssh would otherwise fail on every run, with a message about keys),
 * kept as written when it starts with `~/` (ssh expands it), else made absolute (runs start ssh in the project).
 */
function identityFile(ctx: Context, given: string): string {
  const stored = given.startsWith('~/') || isAbsolute(given) ? given : resolve(ctx.cwd, given);
  const path = stored.startsWith('~/') ? join(ctx.home, stored.slice(2)) : stored;
  let file = false;
  try {
    file = statSync(path).isFile();
  } catch {
    file = false;
  }
  if (!file) {
    throw new SparehandError('USAGE', `--identity ${given}: ${existsSync(path) ? 'not a file' : 'no such file'}`, {
      hint: 'give the private key file ssh would use (`ssh -i FILE`), e.g. ~/.ssh/id_ed25519; nothing was added',
    });
  }
  return stored;
}

export function register(worker: SparehandCommand, ctx: Context): void {
  worker
    .command('add')
    .description('add a worker (or replace the one with that name)')
    .argument('<name>', 'a short name: letters, digits, ".", "_", "-"')
    .argument('[destination]', 'what you would give ssh: host, user@host, or a ~/.ssh/config alias (none with --exec, --docker, --podman, --kubectl)')
    .option('--port <n>', 'ssh port', int)
    .option('--identity <file>', 'private key file (ssh -i)')
    .option('--dir <path>', 'folder on the worker for project copies (default ~/.cache/sparehand/work)')
    .option('--slots <n>', 'how many commands may run on it at once (default 2)', int)
    .option(
      '--exec <command>',
      "a container or pod instead of ssh: the command that runs a program in it with its stdin and stdout, e.g. 'podman exec -i build'",
    )
    .option('--docker <container>', 'a running container: docker exec -i CONTAINER')
    .option('--podman <container>', 'a running container: podman exec -i CONTAINER')
    .option('--kubectl <pod>', 'a pod: kubectl exec -i POD -- (with --namespace, --container, --context)')
    .option('--namespace <ns>', "the pod's namespace (--kubectl)")
    .option('--container <name>', "the pod's container (--kubectl)")
    .option('--context <name>', 'the kubeconfig context (--kubectl, --kubernetes)')
    .option('--kubernetes', 'a pool: the running pods --selector matches in --namespace, each a worker (kubectl exec), looked up per run')
    .option('--selector <labels>', "the pool's pods (--kubernetes), as kubectl -l takes it: app=build")
    .option('--slots-per-pod <n>', 'how many commands may run on each pod at once (--kubernetes; default 2)', int)
    .action(
      async (
        name: string,
        destination: string | undefined,
        o: ExecChoice & { port?: number; identity?: string; dir?: string; slots?: number; slotsPerPod?: number },
      ) => {
        const pool = kubernetesPool(o);
        const exec = pool ? undefined : execArgv(o);
        if ((exec === undefined && pool === undefined) === (destination === undefined)) {
          throw new SparehandError(
            'USAGE',
            destination
              ? 'an exec worker or a pool has no ssh destination'
              : 'give the ssh destination, or --exec, --docker, --podman, --kubectl or --kubernetes',
            {
              hint: 'sparehand worker add NAME user@host, or sparehand worker add NAME --podman CONTAINER',
            },
          );
        }
        const w: Worker = pool ? { name, kubernetes: pool } : exec ? { name, exec } : { name, destination };
        if (o.slotsPerPod !== undefined) o.slots = o.slotsPerPod;
        if (o.port !== undefined) w.port = o.port;
        if (o.identity !== undefined) w.identity = identityFile(ctx, o.identity);
        if (o.dir !== undefined) w.dir = o.dir;
        if (o.slots !== undefined) w.slots = o.slots;
        const { replaced } = await addWorker(ctx, w);
        say(ctx, `${replaced ? 'replaced' : 'added'} worker "${name}" (${workerWhere(w)}); check it with \`sparehand worker check ${name}\``);
        // A pool's pods are asked for at each run: here only whether it has any now.
        if (pool) {
          const found = await expandPools(ctx, [w]);
          say(
            ctx,
            found.failed[0]
              ? found.failed[0].error.message
              : `pool "${name}" has ${found.workers.length} running pod${found.workers.length === 1 ? '' : 's'} now: ${found.workers.map((p) => p.name).join(', ')}`,
          );
          return 0;
        }
        // Asked once: an unreachable worker costs one connection timeout, not one per question below.
        const unreachable = await connect(ctx, w).then(
          () => undefined,
          (e: unknown) => (isSparehandError(e) ? e : Promise.reject(e)),
        );
        // Its rsync, when it can be reached already (runs use what is found; unreachable now: the first run looks).
        const rsync = unreachable ? undefined : await lookForWorkerRsync(ctx, w);
        if (rsync)
          for (const line of [
            `worker "${name}" has ${rsyncLabel(rsync)}${rsync.path === 'rsync' ? '' : ` (${rsync.path})`}`,
            ...rsyncNotes(rsync, 'on the worker'),
          ])
            say(ctx, line);
        // Its platform, so that the hook knows from the first command whether what it builds runs here.
        const platform = unreachable ? undefined : await lookForWorkerPlatform(ctx, w);
        const note = platform ? differenceNote(name, platformHere(ctx.env).platform, platform) : undefined;
        if (note) say(ctx, note);
        // The slot count is the worker's own: every machine sharing it counts the same slots.
        if (o.slots !== undefined) {
          const s = unreachable ? { reachable: false, problem: unreachable.message } : await workerStatus(ctx, w, o.slots);
          say(
            ctx,
            s.reachable
              ? `${name} now has ${o.slots} slot${o.slots === 1 ? '' : 's'}, for every machine that uses it`
              : `${name} could not be reached to set its slots (${s.problem}); its first run sets them`,
          );
        }
        return 0;
      },
    );
}
