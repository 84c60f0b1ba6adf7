// The recording proxy (unit suite): a call out is recorded and refused; nothing leaves the machine.
import { request } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { type Egress, startEgress } from './egress.js';

let egress: Egress | undefined;
afterEach(async () => {
  await egress?.close();
  egress = undefined;
});

const through = (proxy: string, opts: { method: string; path: string }) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(proxy);
    const req = request({ host: url.hostname, port: url.port, method: opts.method, path: opts.path });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });

test('CONNECT and plain requests to hosts not allowed are recorded and refused', async () => {
  egress = await startEgress(['registry.npmjs.org']);
  expect(await through(egress.url, { method: 'CONNECT', path: 'telemetry.example.invalid:443' })).toBe(403);
  expect(await through(egress.url, { method: 'GET', path: 'http://updates.example.invalid/latest' })).toBe(403);
  expect(egress.attempts).toEqual(['telemetry.example.invalid:443', 'updates.example.invalid:80']);
  expect(egress.env.NO_PROXY).toBe('127.0.0.1,localhost,::1');
});
