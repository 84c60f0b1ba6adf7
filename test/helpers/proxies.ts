// Proxies on 127.0.0.1 like the ones coding tools' sandboxes give their commands: HTTP CONNECT (with Basic auth and
// a host allowlist, answering 403 "blocked-by-allowlist" as Claude Code's sandbox runtime does) and SOCKS5 (with
// username/password auth, answering "not allowed by ruleset"). Real sockets, for tests of the tunnel ssh uses.
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

export interface TestProxy {
  /** `http://user:pass@127.0.0.1:PORT` or `socks5h://…`. */
  url: string;
  /** Every `host:port` asked for, allowed or not. */
  asked: string[];
  close: () => Promise<void>;
}

const listen = (server: Server) => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));

function pipeTo(client: Socket, host: string, port: number, ready: () => void, failed: () => void): void {
  const up = connect(port, host);
  up.once('connect', () => {
    ready();
    client.pipe(up);
    up.pipe(client);
  });
  up.once('error', failed);
  client.once('close', () => up.destroy());
  up.once('close', () => client.destroy());
}

/** An HTTP CONNECT proxy that lets through what `allow(host:port)` says, for `user:pass`. */
export async function connectProxy(allow: (target: string) => boolean, auth = 'srt:secret'): Promise<TestProxy> {
  const asked: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      client.pause();
      const target = /^CONNECT (\S+) HTTP/.exec(head)?.[1] ?? '';
      asked.push(target);
      const given = /^proxy-authorization: basic (\S+)/im.exec(head)?.[1];
      if (given === undefined || Buffer.from(given, 'base64').toString() !== auth) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
        return;
      }
      if (!allow(target)) {
        client.end(
          'HTTP/1.1 403 user denied\r\nContent-Type: text/plain\r\nX-Proxy-Error: blocked-by-allowlist\r\n\r\nConnection blocked by network allowlist',
        );
        return;
      }
      const [, host = '', port = ''] = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target) ?? [];
      pipeTo(
        client,
        host,
        Number(port),
        () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          client.resume();
        },
        () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'),
      );
    };
    client.on('data', onData);
  });
  const port = await listen(server);
  const [user, pass] = auth.split(':');
  return { url: `http://${user}:${pass}@127.0.0.1:${port}`, asked, close: () => close(server, sockets) };
}

/** A SOCKS5 proxy (username/password auth) that lets through what `allow(host:port)` says. */
export async function socksProxy(allow: (target: string) => boolean, user = 'srt', pass = 'secret'): Promise<TestProxy> {
  const asked: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    let buf = Buffer.alloc(0);
    let stage: 'hello' | 'auth' | 'connect' = 'hello';
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (stage === 'hello' && buf.length >= 2 && buf.length >= 2 + buf[1]!) {
        const methods = [...buf.subarray(2, 2 + buf[1]!)];
        buf = buf.subarray(2 + buf[1]!);
        if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
        client.write(Buffer.from([5, 2]));
        stage = 'auth';
      }
      if (stage === 'auth' && buf.length >= 2) {
        const ul = buf[1]!;
        if (buf.length < 3 + ul || buf.length < 3 + ul + buf[2 + ul]!) return;
        const pl = buf[2 + ul]!;
        const ok = buf.subarray(2, 2 + ul).toString() === user && buf.subarray(3 + ul, 3 + ul + pl).toString() === pass;
        buf = buf.subarray(3 + ul + pl);
        if (!ok) return void client.end(Buffer.from([1, 1]));
        client.write(Buffer.from([1, 0]));
        stage = 'connect';
      }
      if (stage === 'connect' && buf.length >= 5) {
        const atyp = buf[3]!;
        const len = atyp === 1 ? 10 : atyp === 4 ? 22 : 7 + buf[4]!;
        if (buf.length < len) return;
        const host = atyp === 1 ? [...buf.subarray(4, 8)].join('.') : atyp === 3 ? buf.subarray(5, 5 + buf[4]!).toString() : '::1';
        const port = buf.readUInt16BE(len - 2);
        client.off('data', onData);
        client.pause();
        const target = `${host}:${port}`;
        asked.push(target);
        const reply = (rep: number) => Buffer.from([5, rep, 0, 1, 0, 0, 0, 0, 0, 0]);
        if (!allow(target)) return void client.end(reply(2));
        pipeTo(
          client,
          host,
          port,
          () => {
            client.write(reply(0));
            client.resume();
          },
          () => client.end(reply(5)),
        );
      }
    };
    client.on('data', onData);
  });
  const port = await listen(server);
  return { url: `socks5h://${user}:${pass}@127.0.0.1:${port}`, asked, close: () => close(server, sockets) };
}

function close(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((r) => server.close(() => r()));
}
