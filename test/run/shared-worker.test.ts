// A worker shared by two machines (two client homes, each with its own config and state): the worker keeps the
// count, `status` sees the other machine's runs, `log` lists this machine's. Real sshd, real CLI.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientId, projectKey } from '../../lib/run/project.js';
import { sparehand } from '../helpers/cli.js';
import { sharedTempDir, tempDir } from '../helpers/context.js';
import { gitProject, startMarker, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerFolder, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let laptop: WorkerHome;
let desktop: WorkerHome;
beforeAll(async () => {
  sshd = await startSshd();
  // Both machines call the worker w0 with one slot, in the same folder on it.
  laptop = workerHome([sshd], { slots: 1, dir: 'shared' });
  desktop = workerHome([sshd], { slots: 1, dir: 'shared' });
});
afterAll(async () => {
  await laptop?.close();
  await desktop?.close();
  await sshd?.stop();
});

const start = (h: WorkerHome, proj: string, args: string[]) => sparehand(['run', ...args], { env: h.env, cwd: proj });

describe('a worker shared by two machines', () => {
  it('their runs never overlap on a 1-slot worker: the second waits and says so', async () => {
    const log = join(sharedTempDir(), 'spans.log');
    const cmd = `echo "S $(date +%s%N)" >> ${log}; sleep 1.5; echo "E $(date +%s%N)" >> ${log}`;
    const [a, b] = await Promise.all([start(laptop, gitProject({ 'a.txt': 'a\n' }), ['--', cmd]), start(desktop, gitProject({ 'b.txt': 'b\n' }), ['--', cmd])]);
    expect([a.exitCode, b.exitCode], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.map((l) => l[0])).toEqual(['S', 'E', 'S', 'E']);
    expect(`${a.stderr}${b.stderr}`).toContain('all slots on w0 are busy; waiting for one');
  });

  it('with --or-local, the second runs here at once', async () => {
    const mark = startMarker();
    const a = start(laptop, gitProject({ 'a.txt': 'a\n' }), ['--', `${mark.touch}; sleep 2`]);
    expect(await until(mark.started)).toBe(true);
    const b = await sparehand(['run', '--or-local', '--', 'echo here'], { env: desktop.env, cwd: gitProject({ 'b.txt': 'b\n' }) });
    expect([b.exitCode, b.stdout, b.stderr]).toEqual([0, 'here\n', 'sparehand: running locally: all worker slots are busy\n']);
    expect((await a).exitCode).toBe(0);
  });

  it('a run whose sparehand is killed frees its slot within a few seconds, for the other machine too', async () => {
    const mark = startMarker();
    const a = start(laptop, gitProject({ 'a.txt': 'a\n' }), ['--', `${mark.touch}; sleep 30`]);
    expect(await until(mark.started)).toBe(true);
    a.kill('SIGKILL');
    await a;
    const proj = gitProject({ 'b.txt': 'b\n' });
    const onWorker = async () =>
      (await sparehand(['run', '--or-local', '--', 'echo "${PWD#/}"'], { env: desktop.env, cwd: proj })).stdout.startsWith(
        workerFolder(sshd, 'shared').slice(1),
      );
    expect(await until(onWorker, 6000)).toBe(true);
  });

  it("status shows the other machine's run while it runs: slot, command, project, who, for how long", async () => {
    const mark = startMarker();
    const proj = gitProject({ 'a.txt': 'a\n' });
    const a = start(laptop, proj, ['--', `${mark.touch}; sleep 2 # marked`]);
    expect(await until(mark.started)).toBe(true);
    const s = await sparehand(['status', '--json'], { env: desktop.env, cwd: tempDir() });
    expect(s.exitCode).toBe(0);
    const [w] = JSON.parse(s.stdout).workers;
    expect(w).toMatchObject({ name: 'w0', reachable: true, slots: 1, free: 0 });
    expect(w.runs).toEqual([
      expect.objectContaining({ slot: 0, project: proj, command: `${mark.touch}; sleep 2 # marked`, user: expect.stringMatching(/^\S+@\S+$/) }),
    ]);
    const text = await sparehand(['status'], { env: desktop.env });
    expect(text.stdout).toMatch(
      new RegExp(
        `^w0 \\(${sshd.destination.replaceAll('.', '\\.')}, Linux \\S+ \\(glibc\\)\\): 1 of 1 slot busy\\n  slot 0: .*sleep 2 # marked — ${proj} on \\S+ \\(\\S+@\\S+\\), for \\d+s\\nhere: 0 of \\d+ local slots? busy, 0 waiting\\n(  slot \\d+: free\\n)+$`,
      ),
    );
    await a;
    const after = JSON.parse((await sparehand(['status', '--json'], { env: desktop.env })).stdout).workers[0];
    expect([after.free, after.runs]).toEqual([1, []]);
  });

  it("worker add --slots sets the worker's own count, which every machine then uses", async () => {
    const h = workerHome([sshd], { dir: 'three' });
    const add = await sparehand(
      ['worker', 'add', 'w0', sshd.destination, '--port', String(sshd.port), '--identity', sshd.identity, '--dir', '~/three', '--slots', '3'],
      { env: h.env },
    );
    expect(add.stderr).toContain('w0 now has 3 slots, for every machine that uses it');
    const other = workerHome([sshd], { dir: 'three', slots: 1 });
    const [w] = JSON.parse((await sparehand(['status', '--json'], { env: other.env })).stdout).workers;
    expect([w.slots, w.free]).toEqual([3, 3]);
    await Promise.all([h.close(), other.close()]);
  });
});

describe('sparehand log', () => {
  it("lists this machine's finished runs with their fields, and today's total", async () => {
    const h = workerHome([sshd], { dir: 'log' });
    const proj = gitProject({ 'a.txt': 'a\n' });
    expect((await sparehand(['run', '--', 'echo x > made.txt; exit 3'], { env: h.env, cwd: proj })).exitCode).toBe(3);
    expect((await sparehand(['run', '--local', '--', 'true'], { env: h.env, cwd: proj })).exitCode).toBe(0);
    // Refused before anything ran: logged as refused, not as a run here.
    expect((await sparehand(['run', '--worker', 'nope', '--', 'false'], { env: h.env, cwd: proj })).exitCode).toBe(125);
    const r = await sparehand(['log', '--json'], { env: h.env });
    const { runs, today } = JSON.parse(r.stdout);
    expect(runs).toEqual([
      expect.objectContaining({
        where: 'w0',
        project: proj,
        command: 'echo x > made.txt; exit 3',
        exit: 3,
        files: 1,
        conflicts: 0,
        syncMs: expect.any(Number),
        runMs: expect.any(Number),
      }),
      expect.objectContaining({ where: 'here', why: '--local', command: 'true', exit: 0 }),
      expect.objectContaining({ where: 'none', refused: expect.stringContaining('nope'), command: 'false', exit: 125 }),
    ]);
    // Times in whole milliseconds.
    for (const run of runs) for (const k of ['syncMs', 'depsMs', 'runMs', 'totalMs']) if (k in run) expect([k, Number.isInteger(run[k])]).toEqual([k, true]);
    expect(today).toMatchObject({ runs: 2, onWorkers: 1, here: 1 });
    expect((await sparehand(['log', '-n', '1'], { env: h.env })).stdout).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d {2}refused \(.*nope.*\) {2}exit 125 {2}\S+ {2}false\n/,
    );
    const text = await sparehand(['log', '-n', '2'], { env: h.env });
    expect(text.stdout).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d {2}here \(--local\) {2}exit 0 {2}total \d+\.\ds {2}\S+ {2}true\n.*refused.*\ntoday: 2 runs, 1 on workers \(\d+\.\ds of commands off this machine\), 1 here\n$/,
    );
    await h.close();
  });
});

describe('files this machine keeps about runs never make a run wait', () => {
  it("a copy's file held by a live process that is not sparehand (pid 1), or written on another host, is passed over", async () => {
    const h = workerHome([sshd], { dir: 'stale' });
    const proj = gitProject({ 'a.txt': 'a\n' });
    const folders = join(h.home, '.local', 'state', 'sparehand', 'folders');
    mkdirSync(folders, { recursive: true });
    const key = projectKey(proj, clientId({ home: h.home, env: h.env }, proj));
    writeFileSync(join(folders, `w0.${key}.0`), '1\nthis-host\n'.replace('this-host', hostname()));
    writeFileSync(join(folders, `w0.${key}.1`), `${process.pid}\nanother-host\n`);
    const r = await sparehand(['run', '--', 'echo "${PWD#/}"'], { env: h.env, cwd: proj });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${join(workerFolder(sshd, 'stale'), key, '2').slice(1)}\n`);
    await h.close();
  });
});
