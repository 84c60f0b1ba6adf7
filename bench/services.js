#!/usr/bin/env node
// What a chatty test suite pays for a service forwarded from this machine (docs/run.md "Services on this
// machine"), against the same service started on the worker (`services: [{ port, start }]`), on a real sshd on
// 127.0.0.1. A tiny TCP request-response server (one line in, one line out, as a Redis GET is) and a client that
// makes N sequential round trips and prints how long they took, measured inside the command (the sync and the
// run's own set-up are not in it). In the same run: the client here against the server here (the baseline), the
// client on the worker through sparehand's forward to the server here, and the client on the worker against the
// server the worker started. Prints medians and the ratios against the baseline.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNS, benchHome, median, sshd, tmp } from './setup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'sparehand.js');
const { closeConnections } = await import(join(root, 'dist/remote/connection.js'));
const TRIPS = Number(process.env.BENCH_TRIPS || 2000);

const SERVER = `require("net").createServer(s=>{s.setNoDelay(true);let b="";s.on("data",d=>{b+=d;let i;while((i=b.indexOf("\\n"))>=0){s.write("+"+b.slice(0,i)+"\\n");b=b.slice(i+1)}})}).listen(+process.argv[2],process.argv[3]||"127.0.0.1")`;
const CLIENT = `const n=+process.argv[3];const s=require("net").connect(+process.argv[2],process.argv[4]||"127.0.0.1");s.setNoDelay(true);let k=0,t;let b="";s.on("connect",()=>{t=performance.now();s.write("get key0\\n")});s.on("data",d=>{b+=d;while(b.includes("\\n")){b=b.slice(b.indexOf("\\n")+1);if(++k===n){console.log((performance.now()-t).toFixed(1));process.exit(0)}s.write("get key"+k+"\\n")}})`;

/** A free port on 127.0.0.1 and 127.0.0.2 both (the worker is this machine: its loopback is this one). */
async function freePort() {
  const { createServer } = await import('node:net');
  for (;;) {
    const port = await new Promise((res) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = srv.address().port;
        srv.close(() => res(p));
      });
    });
    const ok = await new Promise((res) => {
      const srv = createServer()
        .once('error', () => res(false))
        .listen(port, '127.0.0.2', () => srv.close(() => res(true)));
    });
    if (ok) return port;
  }
}

const s = await sshd();
const bench = benchHome(s);
const proj = tmp('sparehand-bench-services-');
writeFileSync(join(proj, 'server.js'), `${SERVER}\n`);
writeFileSync(join(proj, 'client.js'), `${CLIENT}\n`);
execFileSync('git', ['init', '-q'], { cwd: proj });
const here = await freePort();
const there = await freePort();
// The server here listens on 127.0.0.2 (the forward binds the worker's 127.0.0.1, which is this machine's too).
const server = spawn(process.execPath, [join(proj, 'server.js'), String(here), '127.0.0.2'], { stdio: 'ignore' });
const config = {
  workers: [bench.worker],
  projects: {
    [proj]: { services: [`127.0.0.2:${here}`, { name: 'echo', port: there, start: `${process.execPath} server.js ${there}` }] },
  },
};
mkdirSync(join(bench.home, '.config', 'sparehand'), { recursive: true });
writeFileSync(join(bench.home, '.config', 'sparehand', 'config.json'), JSON.stringify(config));

/** The client's own time for TRIPS round trips, run by `argv` (here, or through sparehand). */
function trips(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { cwd: proj, env: bench.env, encoding: 'utf8' });
  const ms = Number(r.stdout.trim().split('\n').at(-1));
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return ms;
}

try {
  await new Promise((r) => setTimeout(r, 300));
  const node = process.execPath;
  const cases = [
    ['here: client and server on this machine (baseline)', [node, 'client.js', String(here), String(TRIPS), '127.0.0.2']],
    ['worker: through the forward to the server here', [node, BIN, 'run', '--quiet', '--', `${node} client.js ${here} ${TRIPS}`]],
    ['worker: the server the worker started ("start")', [node, BIN, 'run', '--quiet', '--', `${node} client.js ${there} ${TRIPS}`]],
  ];
  for (const [, argv] of cases) trips(argv); // warm: the shared connection, the copy
  const runs = Math.max(5, Math.min(RUNS, 11));
  const ms = cases.map(() => []);
  // Interleaved, so that a burst of load elsewhere falls on all three alike.
  for (let i = 0; i < runs; i++) {
    cases.forEach(([, argv], j) => {
      ms[j].push(trips(argv));
    });
  }
  const base = median(ms[0]);
  console.log(`${TRIPS} sequential round trips, median of ${runs}:`);
  cases.forEach(([label], j) => {
    const m = median(ms[j]);
    console.log(`  ${label}: ${m.toFixed(0)} ms (${((m * 1000) / TRIPS).toFixed(0)} µs a trip), ${(m / base).toFixed(2)}× the baseline`);
  });
} finally {
  server.kill();
  await closeConnections({ home: bench.home, env: bench.env });
  s.proc.kill();
}
