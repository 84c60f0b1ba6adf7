// Local slots: runs here through sparehand never run more than local.slots at once, wait in arrival order, free
// their slot the moment sparehand dies, never wait past their time, start gently, and show in status. The real
// CLI, with no worker (and, for the one queue, a real sshd as a busy worker).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, sparehand } from '../helpers/cli.js';
import { homeWith, sharedTempDir, tempDir, tool } from '../helpers/context.js';
import { localSlotCount } from '../../lib/run/local-slots.js';
import { gentlePrefix } from '../../lib/run/gentle.js';
import { gitProject, maxOverlap, startMarker, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerFolder, workerHome } from '../helpers/worker-env.js';

type Run = ReturnType<typeof sparehand>;

/** A run and its stderr so far (read while it runs). */
function started(env: NodeJS.ProcessEnv, cmd: string, args: string[] = ['--or-local'], cwd = tempDir()): { run: Run; err: () => string } {
  const run = sparehand(['run', ...args, '--', cmd], { env, cwd });
  let err = '';
  run.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return { run, err: () => err };
}

/** `S <name> <ns>` / `E <name> <ns>` lines as [start, end] per name. */
function spans(log: string): Map<string, [number, number]> {
  const by = new Map<string, [number, number]>();
  for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
    const [k, name, t] = line.split(' ');
    const ms = Number(BigInt(t!) / 1_000_000n);
    const s = by.get(name!) ?? [0, 0];
    if (k === 'S') s[0] = ms;
    else s[1] = ms;
    by.set(name!, s);
  }
  return by;
}

const marked = (log: string, name: string, body: string) => `echo "S ${name} $(date +%s%N)" >> ${log}; ${body}; echo "E ${name} $(date +%s%N)" >> ${log}`;

describe('how many local slots, and how gently', () => {
  const GiB = 1024 ** 3;
  it('by default half the cores, at most one per 4 GiB, at least one; local.slots sets it', () => {
    const count = (cores: number, gib: number, config = {}) => localSlotCount(config, { cores, memory: gib * GiB }).count;
    expect([count(2, 8), count(8, 16), count(16, 32), count(16, 8), count(1, 2), count(4, 2)]).toEqual([1, 4, 8, 2, 1, 1]);
    expect(localSlotCount({}, { cores: 8, memory: 16 * GiB }).why).toBe(
      '8 cores / 2 = 4, 16.0 GiB memory / 4 = 4, at least 1; local.slots in the config sets it',
    );
    expect(localSlotCount({ local: { slots: 6 } }, { cores: 2, memory: 4 * GiB })).toEqual({ count: 6, why: 'local.slots in the config' });
    expect(localSlotCount({ local: { slots: 0 } }).count).toBe(0);
  });

  it("nice 10 and the platform's I/O priority where present; local.nice 0 leaves the priority alone", () => {
    const bin = tempDir();
    for (const t of ['nice', 'ionice', 'taskpolicy']) tool(bin, t, 'exec "$@"');
    expect(gentlePrefix({}, bin, 'linux')).toEqual([join(bin, 'nice'), '-n', '10', join(bin, 'ionice'), '-c3', '-t']);
    expect(gentlePrefix({ local: { nice: 5 } }, bin, 'darwin')).toEqual([join(bin, 'nice'), '-n', '5', join(bin, 'taskpolicy'), '-b']);
    expect(gentlePrefix({ local: { nice: 0 } }, bin, 'linux')).toEqual([]);
    expect(gentlePrefix({}, tempDir(), 'linux')).toEqual([]);
  });
});

describe('local slots, no worker', () => {
  it('five runs at once with local.slots 2: all run, never more than two at once, the others say they wait', async () => {
    const { env } = homeWith({ local: { slots: 2 } });
    const log = join(sharedTempDir(), 'spans.log');
    const runs = ['a', 'b', 'c', 'd', 'e'].map((n) => started(env, marked(log, n, 'sleep 0.6')));
    const results = await Promise.all(runs.map((r) => r.run));
    expect(
      results.map((r) => r.exitCode),
      results.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0, 0, 0, 0]);
    const s = spans(log);
    expect(s.size).toBe(5);
    expect(maxOverlap([...s.values()])).toBeLessThanOrEqual(2);
    expect(results.filter((r) => r.stderr.includes('sparehand: waiting for a slot: ')).length).toBeGreaterThanOrEqual(1);
    // Those that waited say how long, and the log keeps it.
    expect(results.some((r) => /; waited \d+\.\ds for a slot\n/.test(r.stderr))).toBe(true);
    const logged = await sparehand(['log', '--json'], { env });
    expect(JSON.parse(logged.stdout).runs.filter((e: { waitMs?: number }) => (e.waitMs ?? 0) > 0).length).toBeGreaterThanOrEqual(1);
  });

  it('waiting runs start in arrival order, each after the one before it ended', async () => {
    const { env } = homeWith({ local: { slots: 1 } });
    const log = join(sharedTempDir(), 'spans.log');
    const mark = startMarker();
    // a holds the slot until all three wait (not for a time: three sparehands starting on a busy machine take more
    // than a second).
    const go = join(sharedTempDir(), 'go');
    const first = started(env, `${mark.touch}; ${marked(log, 'a', `while [ ! -e ${go} ]; do sleep 0.05; done`)}`);
    expect(await until(mark.started)).toBe(true);
    const later: Array<ReturnType<typeof started>> = [];
    for (const n of ['b', 'c', 'd']) {
      const r = started(env, marked(log, n, 'sleep 0.2'));
      later.push(r);
      // The next one arrives once this one is in the queue.
      expect(await until(() => r.err().includes('waiting for a slot'))).toBe(true);
    }
    writeFileSync(go, '');
    expect(later.map((r) => r.err().match(/waiting for a slot: (.*?), here/)?.[1])).toEqual([
      'next in line, all 1 local slot busy',
      '1 run ahead',
      '2 runs ahead',
    ]);
    await Promise.all([first.run, ...later.map((r) => r.run)]);
    const s = spans(log);
    const order = [...s.entries()].sort((x, y) => x[1][0] - y[1][0]).map(([n]) => n);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    for (const [prev, next] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
    ] as const)
      expect(s.get(next)![0]).toBeGreaterThanOrEqual(s.get(prev)![1]);
  });

  it('a SIGKILLed run frees its slot at once: the one waiting starts right away', async () => {
    const { env } = homeWith({ local: { slots: 1 } });
    const dir = tempDir();
    const mark = startMarker();
    // The command records its shell's pid, to be ended by the test (a killed sparehand leaves it running).
    const a = started(env, `echo $$ > ${dir}/a.pid; ${mark.touch}; exec sleep 30`);
    expect(await until(mark.started)).toBe(true);
    const b = started(env, `echo b > ${dir}/b.ran`);
    expect(await until(() => b.err().includes('waiting for a slot'))).toBe(true);
    // Still waiting a moment later: the slot is held while a's sparehand lives.
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(join(dir, 'b.ran'))).toBe(false);
    const killedAt = Date.now();
    a.run.kill('SIGKILL');
    expect(await until(() => existsSync(join(dir, 'b.ran')), 3000)).toBe(true);
    expect(Date.now() - killedAt).toBeLessThan(2000);
    expect((await b.run).exitCode).toBe(0);
    // The killed run's command outlives it (it holds a's pipes): end it.
    process.kill(Number(readFileSync(join(dir, 'a.pid'), 'utf8')), 'SIGKILL');
    await a.run;
  });

  it('a sparehand run inside a command sparehand runs here takes no second slot (it would wait for itself)', async () => {
    const { env } = homeWith({ local: { slots: 1 } });
    const inner = `node ${JSON.stringify(BIN)} run --or-local -- echo inner`;
    const r = await sparehand(['run', '--or-local', '--timeout', '20s', '--', inner], { env, cwd: tempDir() });
    expect([r.exitCode, r.stdout]).toEqual([0, 'inner\n']);
    expect(r.stderr).not.toContain('waiting');
  });

  it('a run with a short --timeout runs anyway before its limit, and says so', async () => {
    const { env } = homeWith({ local: { slots: 1 } });
    const mark = startMarker();
    const a = started(env, `${mark.touch}; sleep 6`);
    expect(await until(mark.started)).toBe(true);
    const t0 = Date.now();
    const b = await sparehand(['run', '--or-local', '--timeout', '3s', '--', 'echo ran'], { env, cwd: tempDir() });
    const took = Date.now() - t0;
    expect([b.exitCode, b.stdout]).toEqual([0, 'ran\n']);
    expect(b.stderr).toContain('waiting for a slot: next in line, all 1 local slot busy, here (at most ');
    expect(b.stderr).toMatch(/no local slot freed within half of --timeout 3s \(waited \d+\.\ds\); running anyway\n/);
    expect(took).toBeLessThan(3000);
    a.run.kill('SIGKILL');
    await a.run;
  });

  it('status shows the local slots, who holds them and who waits', async () => {
    const { env } = homeWith({ local: { slots: 1 } });
    const mark = startMarker();
    const proj = tempDir();
    const a = started(env, `${mark.touch}; sleep 5 # holder`, ['--or-local'], proj);
    expect(await until(mark.started)).toBe(true);
    const b = started(env, 'true # waiter', ['--local', '--queue'], proj);
    expect(await until(() => b.err().includes('waiting for a slot'))).toBe(true);
    const s = await sparehand(['status', '--json'], { env, cwd: tempDir() });
    const local = JSON.parse(s.stdout).here.local;
    expect(local).toMatchObject({ slots: 1, why: 'local.slots in the config' });
    expect(local.busy.map((r: { slot: number; command: string; project: string }) => [r.slot, r.command, r.project])).toEqual([
      [0, `${mark.touch}; sleep 5 # holder`, proj],
    ]);
    expect(local.waiting.map((r: { command: string }) => r.command)).toEqual(['true # waiter']);
    const text = await sparehand(['status'], { env, cwd: tempDir() });
    expect(text.stdout).toContain('here: 1 of 1 local slot busy, 1 waiting\n  slot 0: ');
    expect(text.stdout).toContain('  waiting 1: true # waiter — ');
    // A signal while it waits ends it as a signal ends a run (128+N), its ticket gone with it.
    b.run.kill('SIGTERM');
    expect((await b.run).exitCode).toBe(143);
    expect(JSON.parse((await sparehand(['status', '--json'], { env, cwd: tempDir() })).stdout).here.local.waiting).toEqual([]);
    a.run.kill('SIGKILL');
    await a.run;
  });

  it('runs here start gently (nice 10), and local.slots 0 turns the queue off', async () => {
    const { env } = homeWith({ local: { slots: 0 } });
    const r = await sparehand(['run', '--or-local', '--', 'ps -o ni= -p $$'], { env, cwd: tempDir() });
    expect(r.stdout.trim()).toBe('10');
    const log = join(sharedTempDir(), 'spans.log');
    // Each holds until all three have started (at most 20 s): with no queue they all run at once, however slowly
    // they start on a loaded machine; a queue would hold the third back until one ended, and they would not overlap.
    const here = sharedTempDir();
    const together = `touch ${here}/$1; i=0; while [ $(ls ${here} | wc -l) -lt 3 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`;
    const all = await Promise.all(['a', 'b', 'c'].map((n) => started(env, marked(log, n, together.replaceAll('$1', n))).run));
    expect(all.map((x) => x.stderr.includes('waiting'))).toEqual([false, false, false]);
    expect(maxOverlap([...spans(log).values()])).toBe(3);
    const doctor = await sparehand(['doctor'], { env, cwd: tempDir() });
    expect(doctor.stdout).toContain('ok  local slots: off (local.slots is 0 in the config');
  });
});

describe('one queue across here and a busy worker', () => {
  let sshd: Sshd;
  let h: WorkerHome;
  beforeAll(async () => {
    sshd = await startSshd();
    h = workerHome([sshd], { slots: 1, dir: 'one-queue', local: { slots: 1 } });
  });
  afterAll(async () => {
    await h?.close();
    await sshd?.stop();
  });

  it('with the worker busy and the local slot busy, --or-local waits and takes whichever frees first', async () => {
    const onWorker = startMarker();
    const w = started(h.env, `${onWorker.touch}; sleep 4`, [], gitProject({ 'a.txt': 'a\n' }));
    expect(await until(onWorker.started)).toBe(true);
    const here = startMarker();
    const l = started(h.env, `${here.touch}; sleep 1.5`, ['--local', '--queue']);
    expect(await until(here.started)).toBe(true);
    const q = started(h.env, 'echo "[$SPAREHAND_RUN] ${PWD#/}"', ['--or-local'], gitProject({ 'b.txt': 'b\n' }));
    expect(await until(() => q.err().includes('waiting for a slot'))).toBe(true);
    expect(q.err()).toContain('waiting for a slot: next in line, all 1 local slot busy, here and on w0\n');
    const r = await q.run;
    // The local slot freed first (1.5 s against 4 s): it ran here, not on the worker.
    expect(r.exitCode).toBe(0);
    expect(r.stdout.startsWith('[1] ')).toBe(true);
    // (The folder without its first `/`: as a path, a worker's output shows the root here.)
    expect(r.stdout).not.toContain(workerFolder(sshd, 'one-queue').slice(1));
    expect(r.stderr).toMatch(/running locally: all worker slots are busy; waited \d+\.\ds for a slot\n/);
    expect((await w.run).exitCode).toBe(0);
    await l.run;
  });

  it('runs waiting for the worker alone take its slot in arrival order too', async () => {
    const log = join(sharedTempDir(), 'spans.log');
    const mark = startMarker();
    // The first holds the worker's slot until the three others are queued (a fixed sleep raced a loaded machine).
    const release = join(tempDir(), 'release');
    const first = started(h.env, `${mark.touch}; ${marked(log, 'a', `while [ ! -e ${release} ]; do sleep 0.05; done`)}`, [], gitProject({ 'a.txt': 'a\n' }));
    expect(await until(mark.started)).toBe(true);
    const later: Array<ReturnType<typeof started>> = [];
    for (const n of ['b', 'c', 'd']) {
      const r = started(h.env, marked(log, n, 'sleep 0.2'), [], gitProject({ [`${n}.txt`]: `${n}\n` }));
      later.push(r);
      expect(await until(() => r.err().includes('all slots on w0 are busy; waiting for one'))).toBe(true);
      // Its ticket is in the queue before the next one comes (status lists it, for a worker only).
      expect(
        await until(async () => JSON.parse((await sparehand(['status', '--json'], { env: h.env })).stdout).here.local.waiting.length === later.length),
      ).toBe(true);
    }
    const text = await sparehand(['status'], { env: h.env });
    expect(text.stdout).toMatch(/ {2}waiting 3: .* — .*, for a worker only\n/);
    writeFileSync(release, '');
    const results = await Promise.all([first.run, ...later.map((r) => r.run)]);
    expect(
      results.map((r) => r.exitCode),
      results.map((r) => r.stderr).join('\n'),
    ).toEqual([0, 0, 0, 0]);
    const s = spans(log);
    expect([...s.entries()].sort((x, y) => x[1][0] - y[1][0]).map(([n]) => n)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('when the worker frees first, the waiting run goes there and says how long it waited', async () => {
    const here = startMarker();
    const l = started(h.env, `${here.touch}; sleep 5`, ['--local', '--queue']);
    expect(await until(here.started)).toBe(true);
    const onWorker = startMarker();
    const w = started(h.env, `${onWorker.touch}; sleep 1`, [], gitProject({ 'a.txt': 'a\n' }));
    expect(await until(onWorker.started)).toBe(true);
    const q = started(h.env, 'echo "${PWD#/}"', ['--or-local'], gitProject({ 'b.txt': 'b\n' }));
    const r = await q.run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('waiting for a slot: ');
    expect(r.stdout.startsWith(workerFolder(sshd, 'one-queue').slice(1))).toBe(true);
    expect(r.stderr).toMatch(/ran on w0: waited \d+\.\ds, sync /);
    await w.run;
    l.run.kill('SIGKILL');
    await l.run;
  });
});
