// A container worker from `worker add --podman`: check, status and log name the transport; a container that is
// not there is explained; a command there gets no terminal, and the run says nothing about it going elsewhere.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { type Container, startContainer } from '../helpers/container.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { freePort } from '../helpers/sshd.js';

let ctr: Container;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  ctr = startContainer();
  env = { PATH: process.env.PATH, HOME: tempDir('sparehand-home-') };
});
afterAll(() => ctr?.stop());

/** A HOME whose kubeconfig names an API server on 127.0.0.1 where nothing listens (no cluster can run here). */
async function noApiServer(): Promise<{ home: string; port: number; env: NodeJS.ProcessEnv }> {
  const home = tempDir('sparehand-home-');
  const port = await freePort();
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\ncontexts: [{name: here, context: {cluster: c}}]\ncurrent-context: here\nusers: []\n`,
  );
  return { home, port, env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig } };
}

describe('an exec worker (podman exec -i)', () => {
  it('worker add --podman writes the exec command; check, a run, status and log name the transport', async () => {
    const add = await sparehand(['worker', 'add', 'box', '--podman', ctr.name, '--dir', ctr.remoteDir], { env });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stderr).toContain(`added worker "box" (podman exec -i ${ctr.name})`);
    const config = JSON.parse(readFileSync(join(env.HOME as string, '.config', 'sparehand', 'config.json'), 'utf8'));
    expect(config.workers).toEqual([{ name: 'box', exec: ['podman', 'exec', '-i', ctr.name], dir: ctr.remoteDir }]);

    const check = await sparehand(['worker', 'check', 'box'], { env, cwd: tempDir() });
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(new RegExp(`^box: ok: .*perl v5.*\\n {2}over: exec podman exec -i ${ctr.name}$`, 'm'));
    const json = JSON.parse((await sparehand(['worker', 'check', 'box', '--json'], { env, cwd: tempDir() })).stdout).workers[0];
    expect(json.transport).toEqual({ kind: 'exec', exec: ['podman', 'exec', '-i', ctr.name] });

    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--', 'cat a.txt; echo made > b.txt; exit 4'], { env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toBe('a\n');
    expect(readFileSync(join(proj, 'b.txt'), 'utf8')).toBe('made\n');

    const status = await sparehand(['status'], { env });
    expect(status.stdout).toMatch(new RegExp(`^box \\(exec podman exec -i ${ctr.name}, .*\\): 0 of 2 slots busy$`, 'm'));
    expect(JSON.parse((await sparehand(['status', '--json'], { env })).stdout).workers[0].transport.kind).toBe('exec');

    const log = await sparehand(['log', '--json'], { env });
    expect(JSON.parse(log.stdout).runs.at(-1)).toMatchObject({ where: 'box', transport: 'exec', exit: 4 });
    expect((await sparehand(['log'], { env })).stdout).toMatch(/ {2}box over exec {2}exit 4 /);
  });

  it('a container that is not running: check and run say so, with the command to try by hand', async () => {
    const home = tempDir('sparehand-home-');
    const e = { PATH: process.env.PATH, HOME: home };
    await sparehand(['worker', 'add', 'gone', '--podman', `${ctr.name}-gone`], { env: e });
    const check = await sparehand(['worker', 'check', 'gone'], { env: e, cwd: tempDir() });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(`gone: FAILED: worker "gone" (podman exec -i ${ctr.name}-gone) could not be reached: `);
    expect(check.stdout).toContain(`fix: is the container or pod running? try \`podman exec -i ${ctr.name}-gone true\` by hand`);
    const r = await sparehand(['run', '--or-local', '--', 'echo here'], { env: e, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('here\n');
    expect(r.stderr).toContain('could not be reached');
  });

  it('a pod worker whose API server does not answer (real kubectl, a closed port on 127.0.0.1): check says what kubectl said', async () => {
    const { port, env: e } = await noApiServer();
    const add = await sparehand(['worker', 'add', 'k0', '--kubectl', 'build-0', '--namespace', 'ci', '--container', 'tools', '--context', 'here'], { env: e });
    expect(add.stderr).toContain('added worker "k0" (kubectl --context here exec -i -n ci build-0 -c tools --)');
    const check = await sparehand(['worker', 'check', 'k0'], { env: e, cwd: tempDir() });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(
      `k0: FAILED: worker "k0" (kubectl --context here exec -i -n ci build-0 -c tools --) could not be reached: The connection to the server 127.0.0.1:${port} was refused`,
    );
  });

  it('a pool whose API server does not answer: worker add, check and status say so; a run goes on here with --or-local, with the line', async () => {
    const { home, port, env: e } = await noApiServer();
    const refused = `pool "kp" (pods -l app=build in ci): its pods could not be listed: The connection to the server 127.0.0.1:${port} was refused`;
    const add = await sparehand(['worker', 'add', 'kp', '--kubernetes', '--namespace', 'ci', '--selector', 'app=build', '--slots-per-pod', '3'], { env: e });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stderr).toContain(refused);
    const config = JSON.parse(readFileSync(join(home, '.config', 'sparehand', 'config.json'), 'utf8'));
    expect(config.workers).toEqual([{ name: 'kp', kubernetes: { namespace: 'ci', selector: 'app=build' }, slots: 3 }]);
    const check = await sparehand(['worker', 'check'], { env: e, cwd: tempDir() });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(`kp: FAILED: ${refused}`);
    const status = await sparehand(['status'], { env: e });
    expect(status.stdout).toContain(`kp (kubernetes pods -l app=build in ci): unreachable: ${refused}`);
    const r = await sparehand(['run', '--or-local', '--', 'echo here'], { env: e, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('here\n');
    expect(r.stderr).toContain(refused);
  });

  it('worker add refuses ssh options or a destination with an exec worker, and a script for --exec', async () => {
    const e = { PATH: process.env.PATH, HOME: tempDir('sparehand-home-') };
    const both = await sparehand(['worker', 'add', 'x', 'me@host', '--podman', 'c'], { env: e });
    expect(both.exitCode).not.toBe(0);
    expect(both.stderr).toContain('an exec worker or a pool has no ssh destination');
    const port = await sparehand(['worker', 'add', 'x', '--docker', 'c', '--port', '22'], { env: e });
    expect(port.exitCode).not.toBe(0);
    expect(port.stderr).toContain("port, identity and forwardAgent are ssh's");
    const script = await sparehand(['worker', 'add', 'x', '--exec', 'podman exec -i c && rm -rf /'], { env: e });
    expect(script.stderr).toContain('no shell operators');
  });
});
