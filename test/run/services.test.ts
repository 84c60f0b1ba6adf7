// This machine's services (a database on localhost) reached by a command on the worker, with a real sshd and a
// real TCP service. The worker is this machine, so its loopback is this one: the service listens on 127.0.0.2:P
// (Linux's loopback is all of 127/8) while the forward binds 127.0.0.1:P, the address the command uses, as a
// project's tests would use localhost on the worker. No namespace or second machine is needed for that.
import { type Server, createServer, connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, readConfig } from '../../lib/config.js';
import { sshForwardArgs, sshOwnSessionArgs } from '../../lib/remote/ssh-args.js';
import { refusedPortsIn } from '../../lib/run/refused-ports.js';
import { composePorts, envPorts } from '../../lib/run/service-signs.js';
import { remoteForwardArgs, servicesFor } from '../../lib/run/services.js';
import { sparehand } from '../helpers/cli.js';
import { homeWith } from '../helpers/context.js';
import { gitProject, until } from '../helpers/project.js';
import { type Sshd, freePort, startSshd } from '../helpers/sshd.js';
import { type workerHome, workerHomes } from '../helpers/worker-env.js';

/** A TCP echo server on `host`:`port` (any port when 0). */
function echoServer(host: string, port = 0): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.pipe(s));
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

/** Whether something accepts a connection on 127.0.0.1:`port` (the worker's loopback, here). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** The test's command: node sends "ping" to 127.0.0.1:PORT and prints what comes back, then waits `holdMs`. */
function pingCommand(port: number, holdMs = 0): string {
  const js = `const s=require("net").connect(${port},"127.0.0.1");s.on("error",e=>{console.error(e.message);process.exit(1)});s.on("connect",()=>s.write("ping\\n"));s.once("data",d=>{process.stdout.write("got "+d);setTimeout(()=>process.exit(0),${holdMs})})`;
  return `${process.execPath} -e '${js}'`;
}

/** A port free on 127.0.0.1, where the service listens on 127.0.0.2 (the same number the command uses). */
async function serviceOn127002(): Promise<{ server: Server; port: number }> {
  for (;;) {
    const port = await freePort();
    try {
      return await echoServer('127.0.0.2', port);
    } catch {
      /* taken there: another */
    }
  }
}

/** stderr holding only sparehand's own lines. */
const onlyOurLines = /^(sparehand: [^\n]*\n)*$/;

let sshd: Sshd;
let service: { server: Server; port: number };
const homes = workerHomes();
const home = (extra: Parameters<typeof workerHome>[1] = {}) => homes.home([sshd], extra);

beforeAll(async () => {
  sshd = await startSshd();
  service = await serviceOn127002();
});
afterAll(async () => {
  await homes.closeAll();
  await sshd?.stop();
  service?.server.close();
});

describe('a command on the worker that needs a service on this machine', () => {
  it('without "services" it fails there, and the run names the refused port and the config line', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--', pingCommand(service.port)], { env: home().env, cwd: proj });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`ECONNREFUSED 127.0.0.1:${service.port}`);
    expect(r.stderr).toContain(
      `sparehand: the command's connection to localhost:${service.port} was refused on w0: if that is a service on this machine, add "services": [${service.port}] to the config`,
    );
  });

  it('with the project\'s "services" it is forwarded for the run: the command passes there, and the forward is gone when the run ends', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const wh = home({ projects: { [proj]: { services: [`127.0.0.2:${service.port}`] } } });
    expect(await accepts(service.port)).toBe(false);
    const r = await sparehand(['run', '--', pingCommand(service.port)], { env: wh.env, cwd: proj });
    expect(r.stderr).not.toContain('refused');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('got ping\n');
    // What it cost is said once, with the way to have the worker start it instead.
    expect(r.stderr).toContain(
      `sparehand: 127.0.0.2:${service.port} was forwarded from here (each request crosses ssh, several times slower than on the worker; a "start" in the config's "services" runs it on the worker instead: docs/run.md "Services on the worker")\n`,
    );
    // The shared connection is still up (it persists), and carries no forward: nothing listens there once the run's
    // own connection is gone (its sshd lets the port go a moment after the run ends: on a loaded machine, after it).
    expect(await until(async () => !(await accepts(service.port)), 5_000)).toBe(true);
    // Another project of the same config gets nothing forwarded.
    const other = gitProject({ 'b.txt': 'b\n' });
    const o = await sparehand(['run', '--quiet', '--', pingCommand(service.port)], { env: wh.env, cwd: other });
    expect(o.exitCode).toBe(1);
  });

  it('the forward is gone when sparehand is killed (SIGKILL) during the run', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const wh = home({ services: [`127.0.0.2:${service.port}`] });
    const p = sparehand(['run', '--', pingCommand(service.port, 60_000)], { env: wh.env, cwd: proj });
    let out = '';
    p.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const started = await until(() => out.includes('got ping'), 20_000);
    if (!started) p.kill('SIGKILL');
    expect(started).toBe(true);
    expect(await accepts(service.port)).toBe(true);
    p.kill('SIGKILL');
    await p;
    expect(await until(async () => !(await accepts(service.port)), 10_000)).toBe(true);
  });

  it("a service that does not answer here: one sentence of sparehand's, not ssh's line per connection", async () => {
    const port = await freePort();
    const wh = home({ services: [`127.0.0.2:${port}`] });
    const r = await sparehand(['run', '--quiet', '--', `${pingCommand(port)}; ${pingCommand(port)}`], { env: wh.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect(r.stderr).not.toContain('connect_to');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('sparehand:'))).toEqual([
      `sparehand: the command on w0 connected to localhost:${port}, which is forwarded to this machine's 127.0.0.2:${port}, but nothing answers there (start the service here, or take it out of "services" in the config)`,
    ]);
  });

  it('a port taken on the worker is named (exit 125); with --or-local the command runs here', async () => {
    const blocker = await echoServer('127.0.0.1');
    try {
      const proj = gitProject({ 'a.txt': 'a\n' });
      const free = await freePort();
      const wh = home({ services: [free, `127.0.0.2:${blocker.port}`] });
      const r = await sparehand(['run', '--', 'echo ran'], { env: wh.env, cwd: proj });
      expect(r.exitCode).toBe(125);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`port ${blocker.port} is in use on w0: this machine's 127.0.0.2:${blocker.port} cannot be forwarded there`);
      // ssh's own line about it (mux_confirm_remote_forward: …) is not printed: sparehand's sentence says it.
      expect(r.stderr).toMatch(onlyOurLines);
      const l = await sparehand(['run', '--or-local', '--', 'echo ran'], { env: wh.env, cwd: proj });
      expect(l.exitCode).toBe(0);
      expect(l.stdout).toBe('ran\n');
      expect(l.stderr).toContain(`port ${blocker.port} is in use on w0`);
      // The free port (nothing listens on it here) was forwarded before the taken one failed; it went with the run.
      expect(await accepts(free)).toBe(false);
    } finally {
      blocker.server.close();
    }
  });

  it('a worker whose sshd allows no forwarding is named as such', async () => {
    const strict = await startSshd({ identity: sshd.identity, extra: ['AllowTcpForwarding no'] });
    try {
      const wh = homes.home([strict], { services: [`127.0.0.2:${service.port}`] });
      const r = await sparehand(['run', '--', 'echo ran'], { env: wh.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
      expect(r.exitCode).toBe(125);
      expect(r.stderr).toContain(`sparehand: w0 refused to forward port ${service.port} (this machine's 127.0.0.2:${service.port})`);
      expect(r.stderr).toContain('AllowTcpForwarding yes');
      expect(r.stderr).toMatch(onlyOurLines);
    } finally {
      await strict.stop();
    }
  });
});

describe('services on a worker whose user is not root', () => {
  it('a port below 1024 is named as one only root may listen on there, not as a forwarding setting', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const wh = home({ services: [5] });
    const r = await sparehand(['run', '--', 'echo ran'], { env: wh.env, cwd: proj });
    expect(r.exitCode).toBe(125);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('sparehand: port 5 cannot be forwarded to w0: below 1024, only root may listen there\n');
    expect(r.stderr).not.toContain('AllowTcpForwarding');
  });
});

describe('services: config, forwards and the refused-port reader', () => {
  it("the config takes ports and HOST:PORT, globally and per project; the project's entry wins for its port", () => {
    const config = ConfigSchema.parse({ services: [5432, '6379', 'localhost:8080'], projects: { '~/app': { services: ['127.0.0.2:5432'] } } });
    expect(servicesFor({ home: '/h' }, config, '/h/app')).toEqual([
      { port: 5432, host: '127.0.0.2' },
      { port: 6379, host: 'localhost' },
      { port: 8080, host: 'localhost' },
    ]);
    expect(servicesFor({ home: '/h' }, config, '/h/other').map((f) => f.host)).toEqual(['localhost', 'localhost', 'localhost']);
    for (const bad of [0, 70000, '99999', 'db', '-R:1', 'a b:1']) expect(ConfigSchema.safeParse({ services: [bad] }).success).toBe(false);
  });

  it("a misspelt field in a project's entry is named like any unknown field", () => {
    const h = homeWith({ projects: { '~/app': { servces: [5432] } } });
    expect(readConfig({ home: h.home, env: h.env }).unknown).toEqual(['projects.~/app.servces']);
  });

  it("forwards bind the worker's loopback only; the run's own session is a master that does not persist and clears ~/.ssh/config forwards", () => {
    expect(remoteForwardArgs([{ port: 5432, host: 'localhost' }])).toEqual(['-R', '127.0.0.1:5432:localhost:5432']);
    const args = sshOwnSessionArgs({ name: 'w', destination: 'w.lan' }, { controlPath: '/s/shared' }, '/s/run-1', 'boot');
    expect(args.join(' ')).toContain('-o ControlMaster=yes -o ControlPath=/s/run-1 -o ControlPersist=no');
    expect(args).toContain('ClearAllForwardings=yes');
    expect(args).not.toContain('ControlPath=/s/shared');
    expect(sshForwardArgs('/s/run-1', ['-R', '127.0.0.1:1:localhost:1']).slice(0, 6)).toEqual([
      '-F',
      '/dev/null',
      '-o',
      'ControlPath=/s/run-1',
      '-O',
      'forward',
    ]);
  });

  it('reads the refused localhost ports in what common clients print', () => {
    const lines: [string, number[]][] = [
      ['Error: connect ECONNREFUSED 127.0.0.1:5432', [5432]],
      ['Error: connect ECONNREFUSED ::1:6379', [6379]],
      ['connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused', [5432]],
      ['redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.', [6379]],
      ['curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused', [8080]],
      ['dial tcp 127.0.0.1:5432: connect: connection refused', [5432]],
      ['Connection refused - connect(2) for "localhost" port 5432', [5432]],
      ['java.net.ConnectException: Connection refused: localhost/127.0.0.1:5432', [5432]],
      ['connect ECONNREFUSED 10.0.0.5:5432', []],
      ['listening on 127.0.0.1:5432', []],
    ];
    for (const [line, ports] of lines) expect([...new Set(refusedPortsIn(line))], line).toEqual(ports);
  });
});

describe('signs that a project needs services on this machine', () => {
  const compose =
    'services:\n  db:\n    image: postgres:16\n    ports:\n      - "5432:5432"\n    volumes:\n      - ./data:/var/lib/postgresql/data\n  cache:\n    ports:\n      - 127.0.0.1:6379:6379/tcp\n      - target: 80\n        published: "8080"\n      - "9000"\n';
  const env =
    'DATABASE_URL="postgres://app:s3cret@localhost/app_test"\nREDIS_URL=redis://127.0.0.1:6380/0\nAPI_URL=https://api.example.com\nexport SEARCH_HOST=localhost\nSEARCH_PORT=9200\n';

  it("compose files' published ports, and .env URLs and HOST/PORT pairs at localhost", () => {
    expect(composePorts(compose)).toEqual([5432, 6379, 8080]);
    expect(envPorts(env)).toEqual([
      { port: 5432, name: 'DATABASE_URL' },
      { port: 6380, name: 'REDIS_URL' },
      { port: 9200, name: 'SEARCH_HOST, SEARCH_PORT' },
    ]);
  });

  it('doctor and the first run of a project print the config line; a later run does not, nor one whose config forwards them', async () => {
    const proj = gitProject({ 'compose.yaml': compose, '.env.test': env });
    const line = `add "projects": ${JSON.stringify({ [proj]: { services: [5432, 6379, 6380, 8080, 9200] } })} to the config`;
    const h = homeWith({});
    const d = await sparehand(['doctor'], { env: h.env, cwd: proj });
    expect(d.stdout).toContain(
      'ok  services: this project looks like it uses services on this machine (compose.yaml: 5432, compose.yaml: 6379, compose.yaml: 8080, .env.test (DATABASE_URL): 5432, .env.test (REDIS_URL): 6380',
    );
    expect(d.stdout).toContain(line);
    expect(d.stdout).not.toContain('s3cret');
    const wh = home();
    const first = await sparehand(['run', '--quiet', '--', 'true'], { env: wh.env, cwd: proj });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toContain(`sparehand: this project looks like it uses services on this machine`);
    expect(first.stderr).toContain(line);
    const second = await sparehand(['run', '--quiet', '--', 'true'], { env: wh.env, cwd: proj });
    expect(second.stderr).toBe('');
    const configured = homeWith({ services: [5432, 6379, 6380, 8080, 9200] });
    const none = await sparehand(['doctor'], { env: configured.env, cwd: proj });
    expect(none.stdout).toContain('ok  services: forwarded to the worker for each run: 5432, 6379, 6380, 8080, 9200 (each request crosses ssh)');
  });
});
