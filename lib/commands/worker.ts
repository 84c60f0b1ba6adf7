// `sparehand worker add|list|check|reset|remove`: the SSH hosts commands run on.
import { InvalidArgumentError } from 'commander';
import type { SparehandCommand } from './command.js';
import type { Worker } from '../config.js';
import { loadConfig } from '../config.js';
import { type Context, say } from '../context.js';
import { SparehandError, isSparehandError } from '../errors.js';
import { closeConnection, connect } from '../remote/connection.js';
import type { WorkerReport } from '../remote/check.js';
import { transportLabel, workerWhere } from '../remote/transport.js';
import { type ExecChoice, execArgv, kubernetesPool } from '../remote/exec-engines.js';
import { expandPools } from '../remote/pools.js';
import { checkWorkersWithToolchains, toolchainLine } from '../toolchain/check.js';
import { rsyncLabel, rsyncNotes } from '../remote/rsync-flavour.js';
import { lookForWorkerRsync } from '../remote/rsync-found.js';
import { workerStatus } from '../remote/status.js';
import { PACKAGE_CACHE_OWNERS, resetCaches, resetProject } from '../run/reset.js';
import { notAProject } from '../run/sendable.js';
import { runsOn } from '../run/runs-here.js';
import { CONTROL_PERSIST } from '../remote/ssh-args.js';
import { gitRoot } from '../project-root.js';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fetchKept, keptOutputs } from '../run/kept.js';
import { size } from '../run/report.js';
import { printable } from '../safe-text.js';
import { addWorker, findWorker, removeWorker, workerDir, workerSlots } from '../remote/workers.js';
import { parsePlatform, platformLabel } from '../platform/platform.js';
import { differenceNote } from '../platform/difference.js';
import { platformHere } from '../platform/here.js';
import { lookForWorkerPlatform } from '../remote/platform-found.js';

/** A whole number; its range is the config schema's to check (and name). */
const int = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
};

/** One line per worker report, for people. */
export function formatReport(r: WorkerReport): string {
  if (!r.ok && r.connectMs === undefined) return `${r.name}: FAILED: ${r.problems.join('; ')}${r.hint ? `\n  fix: ${r.hint}` : ''}`;
  const gb = r.freeBytes == null ? '?' : `${(r.freeBytes / 1e9).toFixed(1)} GB`;
  const rsyncAt = r.rsyncPath && r.rsyncPath !== 'rsync' ? ` (${r.rsyncPath})` : '';
  const platform = r.platform ? parsePlatform(r.platform) : undefined;
  const head = `${r.name}: ${r.ok ? 'ok' : 'PROBLEM'}: ${platform ? `${platformLabel(platform, { libc: true })}, ` : ''}latency ${r.latencyMs} ms (connect ${r.connectMs} ms), bash ${r.bash ?? 'MISSING'}, rsync ${r.rsync ?? 'MISSING'}${rsyncAt}, perl ${r.perl ?? 'MISSING'}, ${gb} free in ${r.dir}, ${r.freeSlots ?? '?'}/${r.slots} slots free`;
  // Plain ssh to the destination goes unsaid; a proxy or another transport is named.
  const over = r.transport.kind === 'ssh' && !r.transport.proxy ? [] : [`\n  over: ${transportLabel(r.transport)}`];
  const notes = [...over, ...(r.notes ?? []).map((n) => `\n  note: ${n}`)].join('');
  return r.ok ? `${head}${notes}` : `${head}\n  ${r.problems.join('; ')}${r.hint ? `\n  fix: ${r.hint}` : ''}${notes}`;
}

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

/** The workers with each pool's running pods in its place; a pool that cannot be listed is said and left out. */
async function podsToo(ctx: Context, workers: readonly Worker[]): Promise<Worker[]> {
  const pools = await expandPools(ctx, workers);
  for (const f of pools.failed) say(ctx, `${f.error.message}; skipped`);
  return pools.workers;
}

export function register(program: SparehandCommand, ctx: Context): void {
  const worker = program.command('worker').description('add, list, check and remove workers (SSH hosts)');
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
  worker
    .command('list')
    .description('list the configured workers')
    .option('--json', 'one JSON document')
    .action((o: { json?: boolean }) => {
      const workers = (loadConfig(ctx, (l) => say(ctx, l)).workers ?? []).map((w) => ({ ...w, dir: workerDir(w), slots: workerSlots(w) }));
      if (o.json) ctx.stdout.write(`${JSON.stringify({ workers }, null, 2)}\n`);
      else if (workers.length === 0) say(ctx, 'no worker configured; add one with `sparehand worker add NAME user@host`');
      else for (const w of workers) ctx.stdout.write(`${w.name}\t${workerWhere(w)}${w.port ? `:${w.port}` : ''}\t${w.dir}\t${w.slots} slots\n`);
      return 0;
    });
  worker
    .command('check')
    .description('connect to each worker (or NAME) and report latency, bash, rsync, perl, free disk and slots; in a project, its toolchains there and here')
    .argument('[name]', 'only this worker')
    .option('--json', 'one JSON document')
    .action(async (name: string | undefined, o: { json?: boolean }) => {
      const config = loadConfig(ctx, (l) => say(ctx, l));
      const workers = name ? [findWorker(config, name)] : (config.workers ?? []);
      if (workers.length === 0) throw new SparehandError('WORKER', 'no worker configured', { hint: 'add one with `sparehand worker add NAME user@host`' });
      const { reports, toolchains } = await checkWorkersWithToolchains(ctx, workers);
      if (o.json) ctx.stdout.write(`${JSON.stringify({ workers: reports, toolchains }, null, 2)}\n`);
      else {
        for (const r of reports) ctx.stdout.write(`${formatReport(r)}\n`);
        for (const t of toolchains) ctx.stdout.write(`${toolchainLine(t)}\n`);
      }
      return reports.some((r) => !r.ok) ? 1 : 0;
    });
  worker
    .command('reset')
    .description(
      "wipe this project's copies on every worker (or NAME): its dependencies, build caches and records there, and the installs remembered to have failed there; the next run starts afresh",
    )
    .argument('[name]', 'only this worker')
    .option('--project <dir>', 'the project (default: the one you are in)')
    .option('--all', `also remove the package managers' caches on the worker (${PACKAGE_CACHE_OWNERS}), which installs there use and a reset keeps`)
    .action(async (name: string | undefined, o: { project?: string; all?: boolean }) => {
      const config = loadConfig(ctx, (l) => say(ctx, l));
      const workers = name ? [findWorker(config, name)] : (config.workers ?? []);
      if (workers.length === 0) throw new SparehandError('WORKER', 'no worker configured', { hint: 'add one with `sparehand worker add NAME user@host`' });
      const dir = resolve(ctx.cwd, o.project ?? '.');
      if (!existsSync(dir)) throw new SparehandError('USAGE', `no folder ${dir}`, { hint: 'give --project the folder of a project' });
      const root = gitRoot(dir) ?? dir;
      const shown = printable(root);
      // No run sends `/` or the home folder (run/sendable.ts): no worker has copies of it.
      const none = notAProject(root, ctx.home);
      if (none) {
        say(ctx, `nothing to reset: ${shown}: ${none}, and no run sends it to a worker; run this in a project, or give --project DIR`);
        return 0;
      }
      for (const w of await podsToo(ctx, workers)) {
        const r = await resetProject(ctx, w, root);
        const forgot = r.forgot > 0 ? `; forgot this machine's ${r.forgot} record${r.forgot === 1 ? '' : 's'} of them` : '';
        say(
          ctx,
          r.removed
            ? `${w.name}: removed ${printable(r.there)} (the copies of ${shown})${forgot}`
            : `${w.name}: no copies of ${shown} there (no ${printable(r.there)}), nothing removed${forgot}`,
        );
        if (!o.all) continue;
        const caches = await resetCaches(ctx, w);
        say(ctx, caches.length > 0 ? `${w.name}: removed the package managers' caches ${caches.join(', ')}` : `${w.name}: no package manager caches there`);
      }
      if (!o.all) say(ctx, `kept the package managers' caches on the worker (${PACKAGE_CACHE_OWNERS}): \`worker reset --all\` removes them too`);
      return 0;
    });
  worker
    .command('fetch')
    .description(
      "bring here what the workers keep because it does not run here (another platform's executables, libraries and object files): all of this project's, or PATHs",
    )
    .argument('[paths...]', 'kept files, or folders holding them (relative to here); none: all of them')
    .option('--worker <name>', 'only from this worker')
    .option('--to <dir>', 'write them under DIR, at their paths in the project (default: at their own paths here)')
    .option('--list', 'only say what the workers keep')
    .option('--json', 'one JSON document')
    .action(async (paths: string[], o: { worker?: string; to?: string; list?: boolean; json?: boolean }) => {
      const config = loadConfig(ctx, (l) => say(ctx, l));
      const workers = await podsToo(ctx, o.worker ? [findWorker(config, o.worker)] : (config.workers ?? []));
      const root = gitRoot(ctx.cwd) ?? ctx.cwd;
      const wanted = paths.map((p) => {
        const rel = relative(root, resolve(ctx.cwd, p)).split(sep).join('/');
        if (rel.startsWith('..') || isAbsolute(rel))
          throw new SparehandError('USAGE', `${p} is not in the project (${root})`, { hint: 'name files or folders of the project you are in' });
        return rel;
      });
      if (o.list) {
        const kept = keptOutputs(ctx, workers, root).filter(
          (k) => wanted.length === 0 || wanted.some((w) => w === '' || k.path === w || k.path.startsWith(`${w}/`)),
        );
        const rows = kept.map((k) => ({ path: k.path, worker: k.worker.name, copy: k.folder, md5: k.hash, keptAt: new Date(k.at).toISOString() }));
        if (o.json) ctx.stdout.write(`${JSON.stringify({ kept: rows }, null, 2)}\n`);
        else if (rows.length === 0) say(ctx, 'no worker keeps anything of this project (what a run keeps there because it does not run here is listed here)');
        else for (const r of rows) ctx.stdout.write(`${printable(r.path)}\t${r.worker}\tcopy ${r.copy}\t${r.keptAt}\n`);
        return 0;
      }
      const to = o.to === undefined ? undefined : resolve(ctx.cwd, o.to);
      if (to !== undefined) mkdirSync(to, { recursive: true });
      const r = await fetchKept(ctx, { workers, root, wanted, ...(to ? { to } : {}) });
      if (o.json) ctx.stdout.write(`${JSON.stringify({ ...r, to: to ?? root }, null, 2)}\n`);
      else {
        const where = (p: string) => printable(to ? relative(ctx.cwd, join(to, p)) || '.' : p);
        for (const f of r.fetched)
          say(
            ctx,
            `fetched ${where(f.path)} from ${f.worker} (${f.what}, ${size(f.size)}${f.changed ? "; it changed in the worker's copy since the run that kept it" : ''})`,
          );
        for (const k of r.skipped) say(ctx, `not fetched: ${printable(k.path)}: ${k.why}`);
        if (r.fetched.length === 0 && r.skipped.length === 0) say(ctx, 'no worker keeps anything of this project: nothing to fetch');
      }
      return r.skipped.length > 0 ? 1 : 0;
    });
  worker
    .command('remove')
    .description('remove a worker from the config and close its shared ssh connection (its files on the worker are left alone)')
    .argument('<name>')
    .action(async (name: string) => {
      const removed = await removeWorker(ctx, name);
      // Its shared connection would otherwise stay up for ControlPersist (10 minutes), for nothing.
      const busy = runsOn(ctx, removed);
      const closed = await closeConnection(ctx, removed, { others: loadConfig(ctx).workers ?? [], busy });
      const runs = `${busy} run${busy === 1 ? '' : 's'}`;
      say(
        ctx,
        closed === 'closed'
          ? `removed worker "${name}" and closed its shared ssh connection`
          : closed === 'stopped'
            ? `removed worker "${name}"; its shared ssh connection takes no new session, and ssh ends it ${CONTROL_PERSIST} (its ControlPersist) after the ${runs} of this machine using it end${busy === 1 ? 's' : ''}`
            : closed
              ? `removed worker "${name}"; its shared ssh connection stays up for worker "${closed.sharedWith}", which reaches the same host the same way`
              : `removed worker "${name}"`,
      );
      return 0;
    });
}
