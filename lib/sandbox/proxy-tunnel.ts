// A TCP tunnel to host:port through a proxy (HTTP CONNECT, or SOCKS5), for ssh inside a coding tool's sandbox whose
// only way out is the proxy it puts in its commands' environment. Used by ssh-proxy-main.ts as ssh's ProxyCommand.
// node:net only: it is started once per ssh connection and must start fast.
import { type Socket, connect, isIPv4, isIPv6 } from 'node:net';

/** What the proxy said: `refused` when it did not let this host through (its allowlist), else `failed`. */
export class TunnelError extends Error {
  constructor(
    readonly kind: 'refused' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/** `host:port` as a proxy wants it (an IPv6 literal in brackets). */
export const hostPort = (host: string, port: number): string => (isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`);

/** Reads from `socket` until `done(buffer)` says how many bytes the reply has (or -1: need more). */
function readReply(socket: Socket, done: (b: Buffer) => number, timeoutMs: number): Promise<{ reply: Buffer; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new TunnelError('failed', 'the proxy did not answer')), timeoutMs);
    const finish = (e?: Error, n?: number) => {
      clearTimeout(timer);
      // What follows the reply is the tunnel's: nothing flows until the caller pipes it.
      socket.pause();
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('end', onEnd);
      if (e) reject(e);
      else resolve({ reply: buf.subarray(0, n), rest: buf.subarray(n) });
    };
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const n = done(buf);
      if (n >= 0) finish(undefined, n);
    };
    const onError = (e: Error) => finish(new TunnelError('failed', `cannot reach the proxy: ${e.message}`));
    const onEnd = () => finish(new TunnelError('failed', 'the proxy closed the connection'));
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('end', onEnd);
    // Paused after the previous reply (so nothing after it is lost): the next one must flow.
    socket.resume();
  });
}

function open(url: URL, defaultPort: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = connect(Number(url.port || defaultPort), host);
    const timer = setTimeout(() => (socket.destroy(), reject(new TunnelError('failed', `the proxy at ${url.host} did not answer`))), timeoutMs);
    socket.once('connect', () => (clearTimeout(timer), resolve(socket)));
    socket.once('error', (e) => (clearTimeout(timer), reject(new TunnelError('failed', `cannot reach the proxy at ${url.host}: ${e.message}`))));
  });
}

async function httpConnect(url: URL, host: string, port: number, timeoutMs: number): Promise<{ socket: Socket; rest: Buffer }> {
  const socket = await open(url, 80, timeoutMs);
  const target = hostPort(host, port);
  const auth = url.username
    ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}\r\n`
    : '';
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
  const { reply, rest } = await readReply(
    socket,
    (b) => {
      const end = b.indexOf('\r\n\r\n');
      return end < 0 ? -1 : end + 4;
    },
    timeoutMs,
  );
  const head = reply.toString('latin1');
  const status = /^HTTP\/\d(?:\.\d)?\s+(\d{3})\s*([^\r\n]*)/.exec(head);
  if (status?.[1] === '200') return { socket, rest };
  socket.destroy();
  const code = status?.[1] ?? '?';
  const why = [status?.[2], /^x-proxy-error:\s*(.*)$/im.exec(head)?.[1]?.trim()].filter(Boolean).join(', ');
  const said = `HTTP ${code}${why ? ` ${why}` : ''}`;
  throw code === '403' || code === '407'
    ? new TunnelError('refused', `the sandbox's proxy refused ${target} (${said})`)
    : new TunnelError('failed', `the sandbox's proxy could not connect to ${target} (${said})`);
}

const SOCKS_REPLIES = [
  'succeeded',
  'general failure',
  'connection not allowed by ruleset',
  'network unreachable',
  'host unreachable',
  'connection refused',
  'TTL expired',
  'command not supported',
  'address type not supported',
];

async function socks5(url: URL, host: string, port: number, timeoutMs: number): Promise<{ socket: Socket; rest: Buffer }> {
  const socket = await open(url, 1080, timeoutMs);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const target = hostPort(host, port);
  const fail = (kind: 'refused' | 'failed', why: string): never => {
    socket.destroy();
    throw new TunnelError(kind, `the sandbox's proxy ${kind === 'refused' ? 'refused' : 'could not connect to'} ${target} (SOCKS5: ${why})`);
  };
  socket.write(Buffer.from(user ? [5, 2, 0, 2] : [5, 1, 0]));
  const hello = (await readReply(socket, (b) => (b.length >= 2 ? 2 : -1), timeoutMs)).reply;
  if (hello[0] !== 5 || hello[1] === 0xff) fail('refused', 'no acceptable authentication');
  if (hello[1] === 2) {
    const u = Buffer.from(user);
    const p = Buffer.from(pass);
    socket.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]));
    const auth = (await readReply(socket, (b) => (b.length >= 2 ? 2 : -1), timeoutMs)).reply;
    if (auth[1] !== 0) fail('refused', 'authentication failed');
  }
  const address = isIPv4(host)
    ? Buffer.from([1, ...host.split('.').map(Number)])
    : isIPv6(host)
      ? Buffer.concat([Buffer.from([4]), ipv6Bytes(host)])
      : Buffer.concat([Buffer.from([3, Buffer.byteLength(host)]), Buffer.from(host)]);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, Buffer.from([port >> 8, port & 0xff])]));
  const { reply, rest } = await readReply(
    socket,
    (b) => {
      if (b.length < 5) return -1;
      const n = b[3] === 1 ? 10 : b[3] === 4 ? 22 : b[3] === 3 ? 7 + b[4]! : 0;
      return n === 0 ? 2 : b.length >= n ? n : -1;
    },
    timeoutMs,
  );
  const rep = reply[1] ?? 1;
  if (rep !== 0) fail(rep === 2 ? 'refused' : 'failed', SOCKS_REPLIES[rep] ?? `reply ${rep}`);
  return { socket, rest };
}

function ipv6Bytes(host: string): Buffer {
  const [head = '', tail = ''] = host.split('::');
  const part = (s: string) => (s ? s.split(':') : []);
  const groups = [...part(head), ...Array(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

/** A socket connected to host:port through `proxy` (an http:// or socks5:// URL), and what came after the reply. */
export function openTunnel(proxy: string, host: string, port: number, timeoutMs = 10_000): Promise<{ socket: Socket; rest: Buffer }> {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return Promise.reject(new TunnelError('failed', 'the proxy in the environment is not a URL'));
  }
  if (url.protocol === 'http:') return httpConnect(url, host, port, timeoutMs);
  if (/^socks5h?:$|^socks:$/.test(url.protocol)) return socks5(url, host, port, timeoutMs);
  return Promise.reject(new TunnelError('failed', `a ${url.protocol} proxy is not supported (http:// and socks5:// are)`));
}
