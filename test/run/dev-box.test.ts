// A dev box reachable only through a jump host (Coder, Codespaces, KubeVirt hand these out): the worker's
// destination is an alias in ~/.ssh/config whose ProxyCommand is `ssh -W %h:%p` through a second real sshd.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { type Sshd, startSshd, trustHostKey } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';

let jump: Sshd;
let box: Sshd;
let wh: WorkerHome;
/** One line per ProxyCommand started: how many connections went through the jump host. */
let proxyLog: string;

beforeAll(async () => {
  jump = await startSshd();
  box = await startSshd({ identity: jump.identity });
  wh = workerHome([], { workers: [{ name: 'box', destination: 'devbox' }] });
  trustHostKey(wh.home, jump);
  trustHostKey(wh.home, box);
  proxyLog = join(tempDir('sparehand-proxy-log-'), 'starts');
  const known = join(wh.home, '.ssh', 'known_hosts');
  // The inner ssh reads no config (-F /dev/null): it is the jump, not another sparehand connection.
  const inner = `ssh -F /dev/null -o BatchMode=yes -o UserKnownHostsFile=${known} -i ${jump.identity} -p ${jump.port} -W %h:%p ${jump.destination}`;
  writeFileSync(
    join(wh.home, '.ssh', 'config'),
    [
      'Host devbox',
      '  HostName 127.0.0.1',
      `  Port ${box.port}`,
      `  User ${box.user}`,
      `  IdentityFile ${box.identity}`,
      '  IdentitiesOnly yes',
      `  ProxyCommand sh -c 'echo start >> ${proxyLog}; exec ${inner}'`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await wh?.close();
  await box?.stop();
  await jump?.stop();
});

const starts = () => (existsSync(proxyLog) ? readFileSync(proxyLog, 'utf8').split('\n').filter(Boolean).length : 0);

describe('a worker behind a ProxyCommand (a jump host)', () => {
  it('runs, brings back what the command made, passes the exit status; every run shares one connection through the jump', async () => {
    const proj = gitProject({ 'src/a.txt': 'a\n' });
    const r = await sparehand(['run', '--', 'cat src/a.txt && echo made > out.txt && echo "${PWD#/}"'], { env: wh.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    // Without its leading slash, so that the output's worker paths (shown as this machine's) leave it as it is.
    expect(r.stdout).toBe(`a\n${copyPath(wh, box.remoteDir, proj).slice(1)}\n`);
    expect(readFileSync(join(proj, 'out.txt'), 'utf8')).toBe('made\n');
    expect(r.stderr).toMatch(/ran on box: .*1 file back/);
    const failed = await sparehand(['run', '--quiet', '--', 'rm out.txt; exit 7'], { env: wh.env, cwd: proj });
    expect(failed.exitCode).toBe(7);
    expect(existsSync(join(proj, 'out.txt'))).toBe(false);
    expect(starts()).toBe(1);
  });

  it('worker check and status say it goes through a proxy, and what the proxy is', async () => {
    const r = await sparehand(['worker', 'check', 'box', '--json'], { env: wh.env, cwd: tempDir() });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout).workers[0];
    expect(report.ok).toBe(true);
    expect(report.transport).toMatchObject({ kind: 'ssh', proxy: expect.stringMatching(/^ProxyCommand sh -c .*-W %h:%p/) });
    const text = await sparehand(['worker', 'check', 'box'], { env: wh.env, cwd: tempDir() });
    expect(text.stdout).toMatch(/^box: ok: .*\n {2}over: ssh devbox through ProxyCommand sh -c /m);
    const status = await sparehand(['status'], { env: wh.env });
    expect(status.stdout).toMatch(/^box \(ssh devbox through ProxyCommand sh -c .*\): 0 of 2 slots busy$/m);
  });
});
