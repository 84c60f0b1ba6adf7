// Services the worker starts for a run (issue 36: a chatty suite at the worker's speed), as CI's service containers
// are: `services: [{ port, start }]` in the config, started in the copy before the command, reached at 127.0.0.1:PORT
// there with no forward, and gone from the worker after the run however it ends (passed, failed, sparehand killed).
// A real sshd whose worker user is an ordinary one; the service is a small node TCP server that answers with the
// WHERE its environment has (the worker owner's profile says "worker"), and a child it leaves running.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type Server, createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../lib/config.js';
import { servicesFor, workerServicesFor } from '../../lib/run/services.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { bashQuote } from '../../lib/classify/index.js';
import { execa } from 'execa';
import { sharedTempDir, tempDir } from '../helpers/context.js';
import { gitProject, until } from '../helpers/project.js';
import { type Sshd, freePort, startSshd, terminalsWork } from '../helpers/sshd.js';
import { type workerHome, workerHomes } from '../helpers/worker-env.js';

let sshd: Sshd;
const homes = workerHomes();
const home = (extra: Parameters<typeof workerHome>[1] = {}) => homes.home([sshd], extra);
beforeAll(async () => {
  const owner = tempDir('sparehand-worker-home-');
  writeFileSync(join(owner, '.profile'), 'export WHERE=worker\n');
  sshd = await startSshd({ home: owner });
}, 60_000);
afterAll(async () => {
  await homes.closeAll();
  await sshd?.stop();
});

/** The service: answers each line with `WHERE:line`; started with a `sleep` child in its group, both pids noted in `pids`. */
const SERVER = 'require("net").createServer(s=>s.on("data",d=>s.write((process.env.WHERE||"here")+":"+d))).listen(+process.argv[1],"127.0.0.1")';
const start = (port: number, pids: string) => `sleep 600 & echo $! > ${pids}/child; echo $$ > ${pids}/service; exec ${process.execPath} -e '${SERVER}' ${port}`;

/** The command: sends "ping" to 127.0.0.1:PORT and prints the answer, then waits `holdMs` and exits `code`. */
function pingCommand(port: number, opts: { holdMs?: number; code?: number } = {}): string {
  const js = `const s=require("net").connect(${port},"127.0.0.1");s.on("error",e=>{console.error(e.message);process.exit(1)});s.on("connect",()=>s.write("ping\\n"));s.once("data",d=>{process.stdout.write("got "+d);setTimeout(()=>process.exit(${opts.code ?? 0}),${opts.holdMs ?? 0})})`;
  return `${process.execPath} -e '${js}'`;
}

/** Whether process `pid` is alive (a zombie counts as gone: it runs nothing). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** The service's and its child's pids, once it wrote them. */
const pidsIn = (dir: string): number[] => ['service', 'child'].map((f) => Number(readFileSync(join(dir, f), 'utf8')));

/** A service here on 127.0.0.2:PORT answering `here:` (what a forward would reach). */
function hereServer(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.on('data', (d) => s.write(`here:${d}`)));
    server.once('error', reject);
    server.listen(port, '127.0.0.2', () => resolve(server));
  });
}

describe('a service the worker starts for the run', () => {
  it("is ready before the command, reached there with no forward (the project's entry wins over a global forward of its port), and gone after", async () => {
    const port = await freePort();
    const pids = sharedTempDir();
    const here = await hereServer(port);
    try {
      const proj = gitProject({ 'a.txt': 'a\n' });
      const wh = home({ services: [`127.0.0.2:${port}`], projects: { [proj]: { services: [{ name: 'echo', port, start: start(port, pids) }] } } });
      const status = () => execFileSync('git', ['status', '--porcelain', '--ignored', '--', '.', ':!.sparehand'], { cwd: proj, encoding: 'utf8' });
      const before = status();
      const r = await sparehand(['run', '--', pingCommand(port)], { env: wh.env, cwd: proj });
      expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'got worker:ping\n']);
      expect(r.stderr).not.toContain('forwarded');
      for (const pid of pidsIn(pids)) expect(alive(pid), `pid ${pid}`).toBe(false);
      expect(await accepts(port)).toBe(false);
      // Its output went beside the copy, not into the project: nothing new here.
      expect(status()).toBe(before);
    } finally {
      here.close();
    }
  });

  it("is stopped when the command fails (its exit status stays the run's)", async () => {
    const port = await freePort();
    const pids = sharedTempDir();
    const proj = gitProject({ 'a.txt': 'a\n' });
    const wh = home({ services: [{ port, start: start(port, pids), ready: `test -s ${pids}/child` }] });
    const r = await sparehand(['run', '--', pingCommand(port, { code: 3 })], { env: wh.env, cwd: proj });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([3, 'got worker:ping\n']);
    for (const pid of pidsIn(pids)) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it.runIf(terminalsWork())('in a terminal too (ssh -tt): started before, stopped after', async () => {
    const port = await freePort();
    const pids = sharedTempDir();
    const proj = gitProject({ 'a.txt': 'a\n' });
    const wh = home({ services: [{ port, start: start(port, pids) }] });
    const inner = `${bashQuote(process.execPath)} ${bashQuote(BIN)} run -- ${bashQuote(pingCommand(port))}`;
    const r = await execa('script', ['-qefc', inner, '/dev/null'], { cwd: proj, env: { ...wh.env, TERM: 'dumb' }, extendEnv: false, reject: false, input: '' });
    expect(r.exitCode, r.stdout as string).toBe(0);
    expect(r.stdout as string).toContain('got worker:ping');
    for (const pid of pidsIn(pids)) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it('is stopped on the worker when sparehand is killed (SIGKILL) during the run', async () => {
    const port = await freePort();
    const pids = sharedTempDir();
    const proj = gitProject({ 'a.txt': 'a\n' });
    const wh = home({ services: [{ port, start: start(port, pids) }] });
    const p = sparehand(['run', '--', pingCommand(port, { holdMs: 60_000 })], { env: wh.env, cwd: proj });
    let out = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const started = await until(() => out.includes('got worker:ping'), 30_000);
    if (!started) p.kill('SIGKILL');
    expect(started).toBe(true);
    const [service, child] = pidsIn(pids) as [number, number];
    expect([alive(service), alive(child)]).toEqual([true, true]);
    p.kill('SIGKILL');
    await p;
    expect(await until(() => !alive(service) && !alive(child), 20_000)).toBe(true);
    expect(await until(async () => !(await accepts(port)), 5_000)).toBe(true);
  });

  it('is stopped when sparehand is killed while it is still getting ready (the wait ends with sparehand)', async () => {
    const port = await freePort();
    const pids = sharedTempDir();
    const proj = gitProject({ 'a.txt': 'a\n' });
    // Never ready: its port never answers, and it has ten minutes to.
    const wh = home({ services: [{ port, start: `sleep 600 & echo $! > ${pids}/child; echo $$ > ${pids}/service; exec sleep 600`, timeout: 600 }] });
    const p = sparehand(['run', '--', 'echo ran'], { env: wh.env, cwd: proj });
    const waiting = await until(() => existsSync(join(pids, 'child')), 30_000);
    if (!waiting) p.kill('SIGKILL');
    expect(waiting).toBe(true);
    const [service, child] = pidsIn(pids) as [number, number];
    p.kill('SIGKILL');
    await p;
    expect(await until(() => !alive(service) && !alive(child), 20_000)).toBe(true);
  });

  it('one that ends before it is ready, or whose port is taken there, keeps the command from starting there: named (125), or run here with --or-local', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const port = await freePort();
    // What it printed is the worker's: shown as plain ASCII (an escape sequence or a bidi control cannot hide a line).
    const broken = home({ services: [{ name: 'db', port, start: "printf 'boom: no config\\033[1A\\342\\200\\256x\\n'; exit 1" }] });
    const r = await sparehand(['run', '--', 'echo ran'], { env: broken.env, cwd: proj });
    expect([r.exitCode, r.stdout]).toEqual([125, '']);
    expect(r.stderr).toContain(`sparehand: w0: the service db (port ${port}) ended on the worker before it was ready; it printed: boom: no config [1A?x\n`);
    const local = await sparehand(['run', '--or-local', '--', 'echo ran'], { env: broken.env, cwd: proj });
    expect([local.exitCode, local.stdout]).toEqual([0, 'ran\n']);
    expect(local.stderr).toContain('sparehand: running locally: w0: the service db');
    // (The worker is this machine: what listens on its 127.0.0.1 here listens there.)
    const taken = createServer(() => undefined);
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const pids = sharedTempDir();
      const wh = home({ services: [{ name: 'echo', port, start: start(port, pids) }] });
      const t = await sparehand(['run', '--', 'echo ran'], { env: wh.env, cwd: proj });
      expect([t.exitCode, t.stdout]).toEqual([125, '']);
      expect(t.stderr).toContain(`the service echo (port ${port}) cannot start on the worker: something there listens on 127.0.0.1:${port} already`);
      expect(existsSync(join(pids, 'service'))).toBe(false);
    } finally {
      taken.close();
    }
  });
});

describe('the config of services the worker starts', () => {
  it('takes { port, start, ready?, name?, timeout? } beside ports and HOST:PORT; only the others are forwarded', () => {
    const services = [
      5432,
      { port: 6379, start: '/usr/bin/redis-server --port 6379', ready: 'redis-cli ping', timeout: 20 },
      { name: 'search', port: 9200, start: 'x' },
    ];
    const config = ConfigSchema.parse({ services });
    expect(servicesFor({ home: '/h' }, config, '/p')).toEqual([{ port: 5432, host: 'localhost' }]);
    expect(workerServicesFor({ home: '/h' }, config, '/p')).toEqual([
      { port: 6379, name: 'redis-server', start: '/usr/bin/redis-server --port 6379', ready: 'redis-cli ping', timeout: 20 },
      { port: 9200, name: 'search', start: 'x', timeout: 30 },
    ]);
    for (const bad of [{ port: 6379 }, { port: 0, start: 'x' }, { port: 6379, start: '' }, { port: 1, start: 'x', name: 'a\nb' }])
      expect(ConfigSchema.safeParse({ services: [bad] }).success, JSON.stringify(bad)).toBe(false);
  });
});
