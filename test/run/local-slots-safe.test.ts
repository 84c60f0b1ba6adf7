// The local slots' folder is sparehand's own and is opened safely: a link planted there (from inside a coding tool's
// sandbox that --sandbox-access lets write the state folder) is never written through, a FIFO never waited on, and a
// run stopped (Ctrl-Z, SIGSTOP) while it waits gives its place up. The real CLI, real links, a real FIFO, real
// stopped processes.
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { homeWith, tempDir } from '../helpers/context.js';
import { startMarker, until } from '../helpers/project.js';

type Run = ReturnType<typeof sparehand>;

/** A run here and its stderr so far. */
function started(env: NodeJS.ProcessEnv, cmd: string): { run: Run; err: () => string } {
  const run = sparehand(['run', '--or-local', '--', cmd], { env, cwd: tempDir() });
  let err = '';
  run.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return { run, err: () => err };
}

const slotsDir = (home: string) => join(home, '.local', 'state', 'sparehand', 'local-slots');

/** Processes to end whatever a test's end (a stopped one is continued first). */
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    for (const sig of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(pid, sig);
      } catch {
        /* gone */
      }
    }
  }
});

/** A file outside sparehand's folders that must stay as it is (~/.bashrc). */
function outside(): { path: string; text: string } {
  const path = join(tempDir(), 'bashrc');
  writeFileSync(path, 'export KEEP=me\n');
  return { path, text: 'export KEEP=me\n' };
}

describe("the local slots' folder, opened safely", () => {
  it.each([
    ['a link', (target: string, at: string) => symlinkSync(target, at), 'a link, not a file sparehand made'],
    ['a hard link', (target: string, at: string) => linkSync(target, at), 'a hard link to another file, not a file sparehand made'],
  ] as const)('%s planted as slot.0 to a file outside is never written through: the file stays, the run takes the slot', async (_, plant, why) => {
    const { env, home } = homeWith({ local: { slots: 1 } });
    const keep = outside();
    mkdirSync(join(slotsDir(home), 'queue'), { recursive: true, mode: 0o700 });
    plant(keep.path, join(slotsDir(home), 'slot.0'));
    const r = await sparehand(['run', '--or-local', '--', 'echo ran'], { env, cwd: tempDir() });
    expect([r.exitCode, r.stdout]).toEqual([0, 'ran\n']);
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    expect(r.stderr).toContain(`sparehand: ignored ${join(slotsDir(home), 'slot.0')}: ${why}\n`);
    expect(r.stderr).not.toContain('no local slot could be held');
    // The name was taken away and made anew: a file of sparehand's.
    expect(lstatSync(join(slotsDir(home), 'slot.0')).isFile()).toBe(true);
    expect(lstatSync(join(slotsDir(home), 'slot.0')).nlink).toBe(1);
  });

  it('local-slots itself a link to a folder outside: nothing is made there, the run takes a slot in a folder made anew', async () => {
    const { env, home } = homeWith({ local: { slots: 1 } });
    const elsewhere = tempDir();
    mkdirSync(join(home, '.local', 'state', 'sparehand'), { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, slotsDir(home));
    const r = await sparehand(['run', '--or-local', '--', 'echo ran'], { env, cwd: tempDir() });
    expect([r.exitCode, r.stdout]).toEqual([0, 'ran\n']);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(lstatSync(slotsDir(home)).isDirectory()).toBe(true);
    expect(r.stderr).toContain(`sparehand: ignored ${slotsDir(home)}: a link, not a folder sparehand made\n`);
  });

  it('a FIFO at queue/next (a real mkfifo) does not hang the run: it is passed over and made anew', async () => {
    const { env, home } = homeWith({ local: { slots: 1 } });
    mkdirSync(join(slotsDir(home), 'queue'), { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', [join(slotsDir(home), 'queue', 'next')]);
    const a = started(env, 'echo ran');
    leftovers.push(a.run.pid!);
    // Bounded only so that a hang fails the test instead of holding it: the run takes well under a second.
    expect(await until(() => a.run.exitCode !== null, 20_000)).toBe(true);
    const r = await a.run;
    expect([r.exitCode, r.stdout]).toEqual([0, 'ran\n']);
    expect(r.stderr).toContain(`sparehand: ignored ${join(slotsDir(home), 'queue', 'next')}: a FIFO, not a file sparehand made\n`);
    expect(r.stderr).not.toContain('no local slot could be held');
    expect(lstatSync(join(slotsDir(home), 'queue', 'next')).isFile()).toBe(true);
  });

  it('a FIFO named as a ticket ahead is passed over, not waited on', async () => {
    const { env, home } = homeWith({ local: { slots: 1 } });
    mkdirSync(join(slotsDir(home), 'queue'), { recursive: true, mode: 0o700 });
    writeFileSync(join(slotsDir(home), 'queue', 'next'), '5\n', { mode: 0o600 });
    execFileSync('mkfifo', [join(slotsDir(home), 'queue', '000000000000003')]);
    const a = started(env, 'echo ran');
    leftovers.push(a.run.pid!);
    expect(await until(() => a.run.exitCode !== null, 20_000)).toBe(true);
    const r = await a.run;
    expect([r.exitCode, r.stdout]).toEqual([0, 'ran\n']);
    expect(r.stderr).toContain(`sparehand: ignored ${join(slotsDir(home), 'queue', '000000000000003')}: a FIFO, not a file sparehand made\n`);
  });
});

describe('a slot keeper that cannot start', () => {
  // Needs root: the folder is given to another user (nobody), so the keeper refuses it and ends at once. Its stdout
  // closed before its exit was seen, and with nothing else holding node, sparehand ended there: status 0, nothing
  // run, nothing said (3 of 5 runs here; Claude Code's sandbox, whose read-only HOME made it fail the same way).
  it.skipIf(process.getuid?.() !== 0)('ends at once in local-slots owned by another user: the run goes ahead, every time, with its own status', async () => {
    const { env, home } = homeWith({ local: { slots: 1 } });
    mkdirSync(slotsDir(home), { recursive: true, mode: 0o700 });
    execFileSync('chown', ['nobody', slotsDir(home)]);
    for (let i = 0; i < 6; i++) {
      const r = await sparehand(['run', '--or-local', '--', 'echo ran; exit 3'], { env, cwd: tempDir() });
      expect([r.exitCode, r.stdout], r.stderr).toEqual([3, 'ran\n']);
      expect(r.stderr).toContain(`sparehand: no local slot could be held (${slotsDir(home)} belongs to another user (uid `);
    }
  });
});

describe('a run stopped while it waits for a local slot', () => {
  /** The pids of `pid`'s children (its slot keeper, perl). */
  const children = (pid: number): number[] => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

  it.each([
    ['its sparehand (kill -STOP)', false],
    ['its sparehand and its slot keeper (as Ctrl-Z stops them)', true],
  ])('gives its place up while stopped: %s; the run behind it takes the free slot, and it runs once continued', async (_, keeper) => {
    const { env } = homeWith({ local: { slots: 1 } });
    const dir = tempDir();
    const go = join(dir, 'go');
    const mark = startMarker();
    // a holds the slot until the test says go.
    const a = started(env, `${mark.touch}; while [ ! -e ${go} ]; do sleep 0.05; done; echo a`);
    leftovers.push(a.run.pid!);
    expect(await until(mark.started)).toBe(true);
    const b = started(env, `echo b > ${dir}/b.ran`);
    leftovers.push(b.run.pid!);
    expect(await until(() => b.err().includes('waiting for a slot'))).toBe(true);
    const c = started(env, `echo c > ${dir}/c.ran`);
    leftovers.push(c.run.pid!);
    expect(await until(() => c.err().includes('waiting for a slot: 1 run ahead'))).toBe(true);
    const stopped = [b.run.pid!, ...(keeper ? children(b.run.pid!) : [])];
    expect(stopped.length).toBe(keeper ? 2 : 1);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    expect(await until(() => stopped.every((pid) => /\)\s+T/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))))).toBe(true);
    writeFileSync(go, '');
    expect((await a.run).exitCode).toBe(0);
    // c goes while b is stopped.
    expect(await until(() => existsSync(join(dir, 'c.ran')), 20_000)).toBe(true);
    expect((await c.run).exitCode).toBe(0);
    expect(existsSync(join(dir, 'b.ran'))).toBe(false);
    // Continued, b takes its turn.
    for (const pid of stopped.reverse()) process.kill(pid, 'SIGCONT');
    const rb = await b.run;
    expect([rb.exitCode, readFileSync(join(dir, 'b.ran'), 'utf8')]).toEqual([0, 'b\n']);
  });
});
