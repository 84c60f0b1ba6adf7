// The transport: the argv of one remote command, rsync's way to the worker, and the exec commands `worker add`
// makes. rsync is checked with real GNU rsync and openrsync over an exec transport that needs no engine: `env
// HOME=DIR`, which runs the command here with that HOME (any program that gives a shell's stdin and stdout will do).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, type Worker } from '../../lib/config.js';
import { execArgv, kubernetesPool } from '../../lib/remote/exec-engines.js';
import { podListArgs, podWorkers } from '../../lib/remote/pools.js';
import { GNU_PLAN, rsyncUpArgs } from '../../lib/send/rsync-args.js';
import { remoteArgv, rsyncShell, transportLabel } from '../../lib/remote/transport.js';
import { tempDir } from '../helpers/context.js';
import { openrsyncBin } from '../helpers/rsyncs.js';

const conn = { controlPath: 'none' };

describe('the transport', () => {
  it('an exec worker runs the remote command string with sh -c in its login folder; ssh is as before', () => {
    const w: Worker = { name: 'c', exec: ['podman', 'exec', '-i', 'build'] };
    expect(remoteArgv(w, conn, "perl -e 'x'")).toEqual(['podman', 'exec', '-i', 'build', 'sh', '-c', "cd 2>/dev/null; perl -e 'x'"]);
    const ssh = remoteArgv({ name: 's', destination: 'me@box' }, conn, 'true', { tty: true });
    expect(ssh[0]).toBe('ssh');
    expect(ssh.slice(-5)).toEqual(['-tt', '-q', '--', 'me@box', 'true']);
    const home = tempDir('sparehand-exec-home-');
    const [file, ...args] = remoteArgv({ name: 'e', exec: ['env', `HOME=${home}`] }, conn, 'pwd; printf "%s|" "$0" a\\ b');
    expect(execFileSync(file as string, args).toString()).toBe(`${home}\nsh|a b|`);
  });

  it('rsync over exec: --blocking-io, the engine through the environment, the command joined as ssh joins it (GNU rsync and openrsync for real)', () => {
    const home = tempDir('sparehand-exec-home-');
    const w: Worker = { name: 'e', exec: ['env', `HOME=${home}`, `PATH=${process.env.PATH}`] };
    const gnu = rsyncShell(w, conn, GNU_PLAN);
    expect(gnu.extra).toEqual(['--blocking-io']);
    expect(parse(gnu.env.SPAREHAND_EXEC ?? '')).toEqual(w.exec);
    const local = tempDir('sparehand-proj-');
    writeFileSync(join(local, 'a b.txt'), 'one\n');
    mkdirSync(join(local, 'src'));
    writeFileSync(join(local, 'src', "it's.ts"), 'two\n');
    const send = (rsync: string, plan: typeof GNU_PLAN, dir: string) => {
      const up = rsyncUpArgs(w, conn, {}, local, dir, { plan, there: 'rsync' });
      execFileSync(rsync, up.args, { env: { PATH: process.env.PATH, ...up.env }, stdio: ['ignore', 'ignore', 'pipe'] });
    };
    // A folder relative to the login folder (as `~/…` on an ssh worker), with a space and a quote in it.
    send('rsync', GNU_PLAN, "work/it's a/0");
    expect(readFileSync(join(home, "work/it's a/0/a b.txt"), 'utf8')).toBe('one\n');
    expect(readFileSync(join(home, "work/it's a/0/src/it's.ts"), 'utf8')).toBe('two\n');
    const open = { del: '--delete-delay', rsh: 'blanks' } as const;
    expect(rsyncShell(w, conn, open).extra).toEqual([]);
    send(join(openrsyncBin(), 'rsync'), open, 'work/open/0');
    expect(readFileSync(join(home, "work/open/0/src/it's.ts"), 'utf8')).toBe('two\n');
  });

  it('worker add: --podman, --docker and --kubectl make the exec command; --exec takes words, not a script', () => {
    expect(execArgv({ podman: 'build' })).toEqual(['podman', 'exec', '-i', 'build']);
    expect(execArgv({ docker: 'build' })).toEqual(['docker', 'exec', '-i', 'build']);
    expect(execArgv({ kubectl: 'build-0', namespace: 'ci', container: 'tools', context: 'prod' })).toEqual([
      'kubectl',
      '--context',
      'prod',
      'exec',
      '-i',
      '-n',
      'ci',
      'build-0',
      '-c',
      'tools',
      '--',
    ]);
    expect(execArgv({ exec: "lxc exec 'my box' --" })).toEqual(['lxc', 'exec', 'my box', '--']);
    expect(execArgv({})).toBeUndefined();
    expect(() => execArgv({ exec: 'podman exec -i a; rm -rf /' })).toThrow(/no shell operators/);
    expect(() => execArgv({ podman: '--privileged' })).toThrow(/must not start with "-"/);
    expect(() => execArgv({ podman: 'a', docker: 'b' })).toThrow(/one of/);
    expect(() => execArgv({ namespace: 'ci' })).toThrow(/go with --kubectl/);
    expect(transportLabel({ kind: 'exec', exec: ['kubectl', 'exec', '-i', 'p', '--'] })).toBe('exec kubectl exec -i p --');
  });

  it("a Kubernetes pool: the running pods its selector matches, each an exec worker NAME.POD with the pool's dir and slots", () => {
    const pool = { namespace: 'ci', selector: 'app=build,tier in (a,b)', context: 'prod', container: 'tools' };
    expect(podListArgs(pool)).toEqual([
      '--context',
      'prod',
      'get',
      'pods',
      '-n',
      'ci',
      '-l',
      'app=build,tier in (a,b)',
      '--field-selector=status.phase=Running',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}',
    ]);
    const w = { name: 'k', kubernetes: pool, dir: '/work', slots: 3 };
    expect(podWorkers(w, 'build-0\nbuild-1\n\n-rf\nBad Name\n')).toEqual([
      { name: 'k.build-0', exec: ['kubectl', '--context', 'prod', 'exec', '-i', '-n', 'ci', 'build-0', '-c', 'tools', '--'], dir: '/work', slots: 3 },
      { name: 'k.build-1', exec: ['kubectl', '--context', 'prod', 'exec', '-i', '-n', 'ci', 'build-1', '-c', 'tools', '--'], dir: '/work', slots: 3 },
    ]);
    expect(kubernetesPool({ kubernetes: true, namespace: 'ci', selector: 'app=build' })).toEqual({ namespace: 'ci', selector: 'app=build' });
    expect(() => kubernetesPool({ kubernetes: true, namespace: 'ci' })).toThrow(/needs --namespace and --selector/);
    expect(() => kubernetesPool({ kubernetes: true, namespace: 'ci', selector: 'a=b', podman: 'x' })).toThrow(/not with --exec/);
    expect(() => kubernetesPool({ selector: 'a=b' })).toThrow(/goes with --kubernetes/);
    expect(ConfigSchema.safeParse({ workers: [{ name: 'k', kubernetes: { namespace: 'ci', selector: 'a=b' } }] }).success).toBe(true);
    expect(ConfigSchema.safeParse({ workers: [{ name: 'k', destination: 'h', kubernetes: { namespace: 'ci', selector: 'a=b' } }] }).success).toBe(false);
  });

  it('config: a worker has a destination or exec, not both; ssh options on an exec worker are refused', () => {
    const ok = (w: object) => ConfigSchema.safeParse({ workers: [{ name: 'w', ...w }] }).success;
    expect(ok({ destination: 'h' })).toBe(true);
    expect(ok({ exec: ['podman', 'exec', '-i', 'c'] })).toBe(true);
    expect(ok({})).toBe(false);
    expect(ok({ destination: 'h', exec: ['x'] })).toBe(false);
    expect(ok({ exec: [] })).toBe(false);
    expect(ok({ exec: ['x'], port: 22 })).toBe(false);
  });
});
