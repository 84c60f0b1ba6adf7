// ssh through a sandbox's proxy: the tunnel itself (HTTP CONNECT and SOCKS5, as coding tools' sandboxes give their
// commands), and `sparehand run` inside such a sandbox (its markers in the environment) reaching a real sshd only
// through the proxy, or running here with one line naming the sandbox and the setting when the proxy refuses.
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTunnel, TunnelError } from '../../lib/sandbox/proxy-tunnel.js';
import { sparehand } from '../helpers/cli.js';
import { gitProject } from '../helpers/project.js';
import { connectProxy, socksProxy } from '../helpers/proxies.js';
import { type WorkerHome, sharedWorker, workerHome } from '../helpers/worker-env.js';

/** A server that says hello and echoes: the far end of a tunnel. */
async function echoServer() {
  const server = createServer((s) => {
    s.write('hello\n');
    s.pipe(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(r)) };
}

/** What comes back through a tunnel after writing `text`. */
async function roundTrip(proxy: string, port: number, text: string): Promise<string> {
  const { socket, rest } = await openTunnel(proxy, '127.0.0.1', port);
  let got = rest.toString();
  socket.on('data', (d) => (got += d.toString()));
  socket.resume();
  socket.write(text);
  await new Promise((r) => setTimeout(r, 100));
  socket.destroy();
  return got;
}

describe('the tunnel through a sandbox proxy', () => {
  it('HTTP CONNECT with Basic auth: the bytes go through both ways', async () => {
    const far = await echoServer();
    const proxy = await connectProxy(() => true);
    expect(await roundTrip(proxy.url, far.port, 'ping\n')).toBe('hello\nping\n');
    expect(proxy.asked).toEqual([`127.0.0.1:${far.port}`]);
    await proxy.close();
    await far.close();
  });

  it('HTTP CONNECT refused by the allowlist: a refusal that says so, at once', async () => {
    const proxy = await connectProxy(() => false);
    const e = await openTunnel(proxy.url, '127.0.0.1', 2222).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TunnelError);
    expect([(e as TunnelError).kind, (e as TunnelError).message]).toEqual([
      'refused',
      "the sandbox's proxy refused 127.0.0.1:2222 (HTTP 403 user denied, blocked-by-allowlist)",
    ]);
    await proxy.close();
  });

  it('SOCKS5 with username/password: through, or refused by its ruleset', async () => {
    const far = await echoServer();
    const open = await socksProxy(() => true);
    expect(await roundTrip(open.url, far.port, 'ping\n')).toBe('hello\nping\n');
    const shut = await socksProxy(() => false);
    const e = (await openTunnel(shut.url, 'worker.lan', 22).catch((x: unknown) => x)) as TunnelError;
    expect([e.kind, e.message]).toEqual(['refused', "the sandbox's proxy refused worker.lan:22 (SOCKS5: connection not allowed by ruleset)"]);
    expect(shut.asked).toEqual(['worker.lan:22']);
    await Promise.all([open.close(), shut.close(), far.close()]);
  });
});

const w = sharedWorker();
// A sandbox whose only way out is its proxy (the markers of Claude Code's: lib/agents/claude-code.ts).
const SANDBOXED = { SANDBOX_RUNTIME: '1', CLAUDECODE: '1' };
const homes: WorkerHome[] = [];
/** A HOME of its own per test: no shared connection left by another test's run. */
const fresh = () => {
  const h = workerHome([w.sshd]);
  homes.push(h);
  return h;
};
afterAll(async () => {
  for (const h of homes) await h.close();
});

describe('sparehand run inside a sandbox whose network is its proxy', () => {
  let allowed: Awaited<ReturnType<typeof connectProxy>>;
  let refusing: Awaited<ReturnType<typeof connectProxy>>;
  beforeAll(async () => {
    allowed = await connectProxy((t) => t === `127.0.0.1:${w.sshd.port}`);
    refusing = await connectProxy(() => false);
  });
  afterAll(async () => {
    await allowed.close();
    await refusing.close();
  });

  it('reaches the worker through the proxy (every connection), when the host is allowed', async () => {
    const project = gitProject({ 'a.txt': 'a\n' });
    const env = { ...fresh().env, ...SANDBOXED, HTTPS_PROXY: allowed.url, NO_PROXY: 'localhost,127.0.0.1' };
    const r = await sparehand(['run', '--', 'cat a.txt; exit 6'], { env, cwd: project });
    expect(r.stderr).toMatch(/^sparehand: ran on w0: /m);
    expect([r.exitCode, r.stdout]).toEqual([6, 'a\n']);
    expect(allowed.asked.length).toBeGreaterThan(0);
    expect(new Set(allowed.asked)).toEqual(new Set([`127.0.0.1:${w.sshd.port}`]));
  });

  it('through a SOCKS5 proxy in ALL_PROXY when that is the only one', async () => {
    const socks = await socksProxy((t) => t === `127.0.0.1:${w.sshd.port}`);
    const project = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--quiet', '--', 'cat a.txt'], { env: { ...fresh().env, ...SANDBOXED, ALL_PROXY: socks.url }, cwd: project });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, 'a\n', '']);
    expect(socks.asked.length).toBeGreaterThan(0);
    await socks.close();
  });

  it('refused by the proxy: runs here, one line naming the sandbox and the setting that would let it through', async () => {
    const project = gitProject({ 'a.txt': 'a\n' });
    const h = fresh();
    const env = { ...h.env, ...SANDBOXED, HTTPS_PROXY: refusing.url };
    const started = Date.now();
    const r = await sparehand(['run', '--or-local', '--', 'cat a.txt; exit 7'], { env, cwd: project });
    expect([r.exitCode, r.stdout]).toEqual([7, 'a\n']);
    expect(Date.now() - started).toBeLessThan(4000);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('sparehand:'));
    expect(lines).toEqual([
      `sparehand: running locally: Claude Code's sandbox did not let sparehand through (worker "w0" (${w.sshd.destination}): the sandbox's proxy refused 127.0.0.1:${w.sshd.port} (HTTP 403 user denied, blocked-by-allowlist)); to let sparehand offload from it: run \`sparehand agent install claude-code --sandbox-access\` (sets sandbox.filesystem.allowWrite += "${join(h.home, '.cache', 'sparehand')}", "${join(h.home, '.local', 'state', 'sparehand')}", sandbox.network.allowedDomains += "127.0.0.1:${w.sshd.port}" in ${join(h.home, '.claude', 'settings.json')})`,
    ]);
  });
});
