// Every run ends in bounded time (issue 23): --timeout covers the whole run from sparehand's start, a worker that
// did not answer is skipped for a while, a profile that hangs cannot hold a run, no command is too long to send,
// and the hook passes the tool's own limit down. A real sshd for each case.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClock } from '../../lib/run/clock.js';
import { runTimeoutSeconds } from '../../lib/hook/decide.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { gitProject, startMarker, until } from '../helpers/project.js';
import { freePort, type Sshd, startSshd, trustHostKey } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

const homes: WorkerHome[] = [];
const sshds: Sshd[] = [];
let plain: Sshd;
beforeAll(async () => {
  plain = await startSshd();
  sshds.push(plain);
});
afterAll(async () => {
  await Promise.all(homes.map((h) => h.close()));
  await Promise.all(sshds.map((s) => s.stop()));
});
const home = (...a: Parameters<typeof workerHome>) => {
  const h = workerHome(...a);
  homes.push(h);
  return h;
};
/** The run and how long it took, in seconds. */
async function timed(p: ReturnType<typeof sparehand>) {
  const t = performance.now();
  const r = await p;
  return { ...r, secs: (performance.now() - t) / 1000 };
}

describe('the clock', () => {
  it('with --or-local a worker has half the time to start the command; without, all of it', () => {
    expect(runClock(10_000, true, 1000)).toEqual({ start: 1000, deadline: 11_000, startBy: 6000 });
    expect(runClock(10_000, false, 1000)).toEqual({ start: 1000, deadline: 11_000, startBy: 11_000 });
    expect(runClock(undefined, true, 1000)).toEqual({ start: 1000, deadline: undefined, startBy: undefined });
  });

  it("the hook's limit for a run: the tool's, less a twentieth (at least 10 s) to report in", () => {
    expect(runTimeoutSeconds(420_000)).toBe(399);
    expect(runTimeoutSeconds(600_000)).toBe(570);
    expect(runTimeoutSeconds(20_000)).toBe(10);
    expect(runTimeoutSeconds(undefined)).toBeUndefined();
  });
});

describe('--timeout bounds the whole run', () => {
  it('a worker whose rsync hangs: --or-local runs here after half the time; without it, 124 at the limit, naming the step', async () => {
    const bin = tempDir('sparehand-hang-');
    tool(bin, 'rsync', 'if [ "$1" = --version ]; then exec /usr/bin/rsync --version; fi\nexec sleep 300');
    const sshd = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin` });
    sshds.push(sshd);
    const h = home([sshd]);
    const proj = gitProject({ 'a.txt': 'a\n' });
    const here = await timed(sparehand(['run', '--timeout', '6s', '--or-local', '--', 'echo ran-$SPAREHAND_RUN'], { env: h.env, cwd: proj }));
    expect([here.exitCode, here.stdout]).toEqual([0, 'ran-1\n']);
    expect(here.stderr).toContain('sparehand: running locally: sending the project to w0 did not finish within half of --timeout 6s');
    expect(here.secs).toBeLessThan(6);
    const not = await timed(sparehand(['run', '--timeout', '4s', '--', 'echo ran'], { env: h.env, cwd: proj }));
    expect([not.exitCode, not.stdout]).toEqual([124, '']);
    expect(not.stderr).toContain('stopped: --timeout 4s was reached before the command started (sending the project to w0 did not finish); nothing ran');
    expect(not.secs).toBeLessThan(6);
  });

  it("a worker's only slot held by a stuck run: the run gives up at the limit with a line; --or-local runs here at once", async () => {
    const h = home([plain], { slots: 1, dir: 'held' });
    const proj = gitProject({ 'a.txt': 'a\n' });
    const mark = startMarker();
    const stuck = sparehand(['run', '--', `${mark.touch}; sleep 8`], { env: h.env, cwd: gitProject({ 'b.txt': 'b\n' }) });
    expect(await until(mark.started)).toBe(true);
    const r = await timed(sparehand(['run', '--timeout', '3s', '--', 'echo ran'], { env: h.env, cwd: proj }));
    expect(r.exitCode).toBe(124);
    expect(r.stderr).toMatch(
      /all slots on w0 are busy; waiting for one \(at most [23]s\)\n[\s\S]*stopped: --timeout 3s was reached before the command started \(all slots on w0 stayed busy\); nothing ran/,
    );
    expect(r.secs).toBeLessThan(5);
    await stuck;
  });

  it('an agent timeout shorter than the slot wait: the rewritten command ends before it, with a reason', async () => {
    const h = home([plain], { slots: 1, dir: 'agent' });
    const proj = gitProject({ 'a.txt': 'a\n' });
    const mark = startMarker();
    const stuck = sparehand(['run', '--', `${mark.touch}; sleep 25`], { env: h.env, cwd: gitProject({ 'b.txt': 'b\n' }) });
    expect(await until(mark.started)).toBe(true);
    // The hook, as Claude Code calls it with a 20-second Bash timeout (raised to 5m20s: the run gets 5m4s)...
    const payload = { session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test', timeout: 20_000 }, cwd: proj };
    const answer = JSON.parse((await sparehand(['agent', 'hook', '--for', 'claude-code'], { env: h.env, cwd: proj, input: JSON.stringify(payload) })).stdout);
    const rewritten: string = answer.hookSpecificOutput.updatedInput.command;
    expect(rewritten).toMatch(/ run --or-local --timeout 304s -- 'npm test'$/);
    // ...and the same rewrite with a limit the slot wait would pass: it runs here at once (--or-local), in time.
    const short = rewritten.replace('--timeout 304s', '--timeout 10s').replace("'npm test'", "'echo tested'");
    // sparehand's own options: the words after the last ` run ` (the clone's path may hold ` run ` itself).
    const options = short
      .slice(short.lastIndexOf(' run --or-local ') + ' run '.length)
      .split(' ')
      .slice(0, 4);
    const r = await timed(sparehand(['run', ...options, 'echo tested'], { env: h.env, cwd: proj }));
    expect([r.exitCode, r.stdout]).toEqual([0, 'tested\n']);
    expect(r.stderr).toContain('running locally: all worker slots are busy');
    expect(r.secs).toBeLessThan(10);
    stuck.kill();
    await stuck;
  });
});

describe('a worker that does not answer costs one wait, not one per run', () => {
  let silent: Server;
  let silentPort: number;
  beforeAll(async () => {
    silentPort = await freePort();
    silent = createServer(() => undefined).listen(silentPort, '127.0.0.1');
  });
  afterAll(() => silent.close());

  it('a listener that never speaks ssh, first in the config: the first run waits once, the next ones skip it at once and say why', async () => {
    const h = home([plain]);
    trustHostKey(h.home, { knownHostsLine: `[127.0.0.1]:${silentPort} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl` });
    const config = JSON.parse(execFileSync('cat', [join(h.home, '.config', 'sparehand', 'config.json')], { encoding: 'utf8' }));
    config.workers = [{ name: 'quiet', destination: 'root@127.0.0.1', port: silentPort, identity: plain.identity }, ...config.workers];
    writeFileSync(join(h.home, '.config', 'sparehand', 'config.json'), JSON.stringify(config));
    const proj = gitProject({ 'a.txt': 'a\n' });
    const first = await timed(sparehand(['run', '--worker', 'quiet', '--or-local', '--', 'echo one'], { env: h.env, cwd: proj }));
    expect(first.stdout).toBe('one\n');
    expect(first.stderr).toContain('running locally: worker "quiet" (root@127.0.0.1): connection timed out');
    expect(first.secs).toBeGreaterThan(4);
    const second = await timed(sparehand(['run', '--worker', 'quiet', '--or-local', '--', 'echo two'], { env: h.env, cwd: proj }));
    expect(second.stdout).toBe('two\n');
    expect(second.stderr).toMatch(/running locally: worker "quiet" \(root@127\.0\.0\.1\): connection timed out \d+s ago; not asked again for \d+s/);
    expect(second.secs).toBeLessThan(2);
    // status shows it, without waiting for it either.
    const status = await timed(sparehand(['status', '--json'], { env: h.env }));
    expect(JSON.parse(status.stdout).workers.find((w: { name: string }) => w.name === 'quiet')).toMatchObject({
      reachable: false,
      problem: expect.stringMatching(/connection timed out \d+s ago; runs skip it for \d+s more/),
    });
    expect(status.secs).toBeLessThan(3);
    // A worker that cannot be reached is a failure a script sees.
    expect(status.exitCode).toBe(1);
    // With both workers: straight to the one that answers.
    const both = await timed(sparehand(['run', '--', 'echo both'], { env: h.env, cwd: proj }));
    expect([both.exitCode, both.stdout]).toEqual([0, 'both\n']);
    expect(both.stderr).toMatch(/ran on w0/);
    expect(both.secs).toBeLessThan(3);
  });
});

describe('nothing on the worker can hold a run', () => {
  it("a login profile that hangs: stopped after 15 s, the command runs with the session's environment, one line says so", async () => {
    const owner = tempDir('sparehand-worker-home-');
    writeFileSync(join(owner, '.profile'), 'sleep 600\n');
    const sshd = await startSshd({ home: owner });
    sshds.push(sshd);
    const h = home([sshd]);
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await timed(sparehand(['run', '--', 'echo ran'], { env: h.env, cwd: proj }));
    expect([r.exitCode, r.stdout]).toEqual([0, 'ran\n']);
    expect(r.stderr).toMatch(
      /the worker's login shell \(.* -l\) did not finish within 15s \(a profile that waits for input\?\); the command runs with the ssh session's environment/,
    );
    expect(r.secs).toBeLessThan(25);
    // With a time limit, a worker stuck there does not hold the run: it goes here when half the time is gone.
    const fresh = home([sshd]);
    const quick = await timed(sparehand(['run', '--timeout', '6s', '--or-local', '--', 'echo here'], { env: fresh.env, cwd: gitProject({ 'b.txt': 'b\n' }) }));
    expect([quick.exitCode, quick.stdout]).toEqual([0, 'here\n']);
    expect(quick.stderr).toContain('w0 had not started the command within half of --timeout 6s');
    expect(quick.secs).toBeLessThan(6);
  }, 90_000);

  it('a 1 MB command runs there as here (no argument carries it)', async () => {
    const h = home([plain]);
    const proj = gitProject({ 'a.txt': 'a\n' });
    const words = Array.from({ length: 20 }, (_, i) => `${i}${'x'.repeat(52_000)}`);
    const r = await sparehand(['run', '--quiet', '--', 'printf', '%s\\n', ...words], { env: h.env, cwd: proj });
    expect(r.exitCode, r.stderr.slice(0, 300)).toBe(0);
    expect(r.stdout).toBe(words.map((w) => `${w}\n`).join(''));
    const local = await sparehand(['run', '--local', '--', 'printf', '%s\\n', ...words], { env: h.env, cwd: proj });
    expect([local.exitCode, local.stdout === r.stdout]).toEqual([0, true]);
  });
});
