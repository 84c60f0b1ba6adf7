// A recording proxy on 127.0.0.1, set as the run's HTTP(S)_PROXY: every call out that a proxy-aware tool tries
// is recorded (host:port) and refused, except the hosts a run is allowed to reach (the npm registry, which
// OpenCode installs its plugin package from), which are tunnelled. The fake model is reached directly (NO_PROXY).
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface Egress {
  url: string;
  /** Every host:port a tool tried to reach through the proxy, in order (allowed ones too). */
  attempts: string[];
  /** Proxy variables for the run's environment. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the proxy; `allow` lists host names that are tunnelled instead of refused. */
export async function startEgress(allow: readonly string[] = ['registry.npmjs.org']): Promise<Egress> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    // Plain http through a proxy: an absolute URI. Recorded and refused.
    attempts.push(hostOf(req));
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('sparehand e2e: no network here\n');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    attempts.push(target);
    const [host, port] = splitHostPort(target);
    client.on('error', () => client.destroy());
    if (!allow.includes(host)) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port) || 443, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const noProxy = '127.0.0.1,localhost,::1';
  return {
    url,
    attempts,
    env: {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function hostOf(req: IncomingMessage): string {
  try {
    const u = new URL(req.url ?? '');
    return `${u.hostname}:${u.port || 80}`;
  } catch {
    return `${req.headers.host ?? '?'}`;
  }
}

function splitHostPort(target: string): [string, string] {
  const i = target.lastIndexOf(':');
  return i < 0 ? [target, '443'] : [target.slice(0, i).replace(/^\[|\]$/g, ''), target.slice(i + 1)];
}
