// A run that does not end normally brings nothing back and leaves nothing running: the connection lost, or
// sparehand itself killed, at each stage (sending, running, bringing back). Real sshd, real CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { connectionFor } from '../../lib/remote/connection.js';
import { sshControlArgs } from '../../lib/remote/ssh-args.js';
import { sparehand } from '../helpers/cli.js';
import { files, gitProject, startMarker, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
const homes: WorkerHome[] = [];
beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  await Promise.all(homes.map((h) => h.close()));
  await sshd?.stop();
});

/** A HOME of its own (its own shared connection, which a test may kill) with a 1-slot worker. */
function home(): WorkerHome {
  const h = workerHome([sshd], { slots: 1 });
  homes.push(h);
  return h;
}

/** Processes here (and on the worker, which is this machine) whose command line names `text`. */
function processesNaming(text: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', '--', text], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((l) => !l.includes('pgrep'));
  } catch {
    return [];
  }
}

/** Processes (on the worker, which is this machine) working in `proj`'s copies there: nothing may be left. */
function processesIn(h: WorkerHome, proj: string): string[] {
  const copies = join(copyPath(h, sshd.remoteDir, proj), '..');
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === copies || cwd.startsWith(`${copies}/`)) found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    } catch {
      /* gone, or not ours to look at */
    }
  }
  return found;
}

/** Kills the shared ssh connection of `h` (as a dropped network would): its master process, at once. */
function killConnection(h: WorkerHome): void {
  const worker = { name: 'w0', destination: sshd.destination, port: sshd.port, identity: sshd.identity };
  const r = spawnSync('ssh', sshControlArgs(worker, connectionFor(h, worker), 'check'), { env: h.env, encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(r.stderr)?.[1];
  expect(pid, r.stderr).toBeDefined();
  process.kill(Number(pid), 'SIGKILL');
}

const incoming = (proj: string) => existsSync(join(proj, '.sparehand', 'incoming')) && readdirSync(join(proj, '.sparehand', 'incoming')).length > 0;

const start = (h: WorkerHome, proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: h.env, cwd: proj });

/**
 * The slot is free again: a run with --or-local on the 1-slot worker goes to the worker, not here. (The worker program
 * may end a moment after sparehand, finishing the piece of work it is in: about 1.4 s on this 400 MB report, seen as
 * an ordinary user; status says when it has.)
 */
async function slotFree(h: WorkerHome): Promise<void> {
  const idle = async () => {
    const s = await sparehand(['status', '--json'], { env: h.env });
    return (JSON.parse(s.stdout) as { workers: { runs?: unknown[] }[] }).workers.every((w) => (w.runs ?? []).length === 0);
  };
  expect(await until(idle, 15_000)).toBe(true);
  const r = await sparehand(['run', '--or-local', '--', 'echo "where=${PWD#/}"'], { env: h.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
  expect(r.stderr).not.toContain('running locally');
  expect(r.stdout).toContain(sshd.remoteDir.slice(1));
}

describe('the connection lost', () => {
  it('mid-command: exit 255, one line that says the fate is unknown, nothing brought back', async () => {
    const h = home();
    const proj = gitProject({ 'src/f1.ts': 'original\n' });
    const mark = startMarker();
    const p = start(h, proj, `echo partial > src/f1.ts; ${mark.touch}; sleep 30`);
    expect(await until(mark.started)).toBe(true);
    expect(processesIn(h, proj).length).toBeGreaterThan(0);
    killConnection(h);
    const r = await p;
    expect(r.exitCode).toBe(255);
    expect(r.stderr).toMatch(/sparehand: the connection to w0 was lost while the command ran; its fate is unknown and nothing was brought back/);
    expect(files(proj)).toEqual({ 'src/f1.ts': 'original\n' });
    expect(await until(() => processesIn(h, proj).length === 0, 8000)).toBe(true);
  });

  it("mid-fetch: exit 255, and none of the command's files are applied", async () => {
    const h = home();
    const proj = gitProject({ 'src/f1.ts': 'original\n' });
    const p = start(h, proj, 'echo changed > src/f1.ts; yes sparehand | head -c 400000000 > big.bin');
    const fetching = await until(() => incoming(proj), 30_000);
    if (fetching) killConnection(h);
    const r = await p;
    expect(fetching, r.stderr).toBe(true);
    expect(r.exitCode).toBe(255);
    expect(r.stderr).toMatch(/the connection to w0 was lost while the command's files came back; nothing was brought back/);
    expect(files(proj)).toEqual({ 'src/f1.ts': 'original\n' });
  });
});

describe('sparehand killed', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`${signal} while sending the project: rsync stops, the slot is free, the worker runs nothing`, async () => {
      const h = home();
      const proj = gitProject({ 'a.txt': 'a\n' });
      truncateSync(join(proj, 'a.txt'), 0);
      execFileSync('truncate', ['-s', '4G', join(proj, 'big.bin')]);
      onTestFinished(() => rmSync(proj, { recursive: true, force: true }));
      const mark = startMarker();
      const p = start(h, proj, `${mark.touch}`);
      const sending = await until(() => processesNaming(`${proj}/`).some((l) => l.includes('rsync')), 20_000);
      p.kill(signal);
      const r = await p;
      expect(sending, r.stderr).toBe(true);
      expect(await until(() => processesNaming(`${proj}/`).length === 0 && processesIn(h, proj).length === 0, 4000)).toBe(true);
      expect(mark.started()).toBe(false);
      if (signal === 'SIGTERM') expect(r.exitCode).toBe(143);
      await slotFree(h);
    });

    it(`${signal} while the command runs: it stops on the worker, nothing comes back, the slot is free`, async () => {
      const h = home();
      const proj = gitProject({ 'src/f1.ts': 'original\n' });
      const mark = startMarker();
      // A sleep of its own length, to be found among the processes of other tests running at the same time.
      const sleep = `sleep 30.${process.pid}${Date.now() % 100_000}`;
      const p = start(h, proj, `echo partial > src/f1.ts; ${mark.touch}; ${sleep}`);
      expect(await until(mark.started)).toBe(true);
      expect(processesIn(h, proj).length).toBeGreaterThan(0);
      p.kill(signal);
      const r = await p;
      if (signal === 'SIGTERM') expect(r.exitCode).toBe(143);
      expect(await until(() => processesIn(h, proj).length === 0 && processesNaming(sleep).length === 0, 10_000)).toBe(true);
      expect(files(proj)).toEqual({ 'src/f1.ts': 'original\n' });
      await slotFree(h);
    });

    it(`${signal} while the files come back: nothing is applied, nothing keeps writing, the slot is free`, async () => {
      const h = home();
      const proj = gitProject({ 'src/f1.ts': 'original\n' });
      const p = start(h, proj, 'echo changed > src/f1.ts; yes sparehand | head -c 400000000 > big.bin');
      const fetching = await until(() => incoming(proj), 30_000);
      p.kill(signal);
      const r = await p;
      expect(fetching, r.stderr).toBe(true);
      if (signal === 'SIGTERM') expect(r.exitCode).toBe(143);
      expect(await until(() => processesIn(h, proj).length === 0, 8000)).toBe(true);
      expect(files(proj)).toEqual({ 'src/f1.ts': 'original\n' });
      await slotFree(h);
    });
  }
});
