// Every stop has its line, and `sparehand log` keeps what happened: a --timeout reached before the command started
// is a stop (nothing ran), not a run here; a command stopped after seconds on a worker ran those seconds. A real sshd.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { terminalsWork } from '../helpers/sshd.js';
import type { LogEntry } from '../../lib/run/run-log.js';
import { cliLine, sparehand } from '../helpers/cli.js';
import { homeWith } from '../helpers/context.js';
import { gitProject, startMarker, until } from '../helpers/project.js';
import { type WorkerHome, sharedWorker, workerHome } from '../helpers/worker-env.js';

const w = sharedWorker();

/** The last entry of `sparehand log --json`, and the line `sparehand log` prints for it. */
async function lastLogged(env: NodeJS.ProcessEnv): Promise<{ entry: LogEntry; line: string; today: { runs: number } }> {
  const json = JSON.parse((await sparehand(['log', '--json'], { env })).stdout) as { runs: LogEntry[]; today: { runs: number } };
  const lines = (await sparehand(['log'], { env })).stdout.trim().split('\n');
  return { entry: json.runs.at(-1) as LogEntry, line: lines.at(-2) as string, today: json.today };
}

describe('a command here stopped by --timeout', () => {
  it('--local: exit 124 and a line that says so', async () => {
    const h = homeWith({});
    const r = await sparehand(['run', '--local', '--timeout', '2s', '--', 'sleep 5'], { env: h.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect([r.exitCode, r.stderr]).toEqual([124, 'sparehand: running locally (--local)\nsparehand: stopped: the command ran past --timeout 2s\n']);
  });

  it('--or-local with no worker: the same', async () => {
    const h = homeWith({});
    const r = await sparehand(['run', '--or-local', '--timeout', '2s', '--', 'sleep 5'], { env: h.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect(r.exitCode).toBe(124);
    expect(r.stderr.split('\n').at(-2)).toBe('sparehand: stopped: the command ran past --timeout 2s');
  });
});

describe('what the log keeps of a stopped run', () => {
  it('a command stopped by --timeout after seconds on the worker is logged with the seconds it ran', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    // The connection and the copy made first: the run's time is the command's.
    expect((await sparehand(['run', '--', 'true'], { env: w.wh.env, cwd: proj })).exitCode).toBe(0);
    const r = await sparehand(['run', '--timeout', '4s', '--', 'sleep 10'], { env: w.wh.env, cwd: proj });
    expect([r.exitCode, r.stderr]).toEqual([124, 'sparehand: stopped: the command ran past --timeout 4s; nothing was brought back\n']);
    const { entry, line } = await lastLogged(w.wh.env);
    expect(entry).toMatchObject({ where: 'w0', exit: 124, command: 'sleep 10' });
    expect(entry.stopped).toBeUndefined();
    expect(entry.runMs).toBeGreaterThan(2000);
    expect(entry.runMs).toBeLessThan(4500);
    expect(line).toMatch(/ {2}w0 {2}exit 124 {2}sync \d+\.\ds.*, run [234]\.\ds, 0 back/);
  });

  it('--timeout reached while waiting for a slot: logged as stopped before it started, not as a run here', async () => {
    const h: WorkerHome = workerHome([w.sshd], { slots: 1, dir: 'held' });
    const mark = startMarker();
    const stuck = sparehand(['run', '--', `${mark.touch}; sleep 8`], { env: h.env, cwd: gitProject({ 'b.txt': 'b\n' }) });
    expect(await until(mark.started)).toBe(true);
    const r = await sparehand(['run', '--timeout', '3s', '--', 'echo ran'], { env: h.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect(r.exitCode).toBe(124);
    const why = '--timeout 3s was reached before the command started (all slots on w0 stayed busy); nothing ran';
    expect(r.stderr).toContain(`sparehand: stopped: ${why}\n`);
    const { entry, line, today } = await lastLogged(h.env);
    expect(entry).toMatchObject({ where: 'none', stopped: why, exit: 124, command: 'echo ran' });
    expect(line).toMatch(new RegExp(`^\\S+ \\S+ {2}stopped \\(${why.replace(/[()]/g, '\\$&')}\\) {2}exit 124 {2}/`));
    // Not a run: today has none (the stuck one still runs, and is logged when it ends).
    expect(today.runs).toBe(0);
    stuck.kill();
    await stuck;
    await h.close();
  });

  it.runIf(terminalsWork())(
    'in terminal mode, a command stopped by --timeout is said to have run past it (not "nothing ran"), and logged with its time',
    async () => {
      const proj = gitProject({ 'a.txt': 'a\n' });
      expect((await sparehand(['run', '--', 'true'], { env: w.wh.env, cwd: proj })).exitCode).toBe(0);
      const r = await execa('script', ['-qec', cliLine(['run', '--timeout', '4s', '--', 'echo started; sleep 10']), '/dev/null'], {
        cwd: proj,
        env: { ...w.wh.env, TERM: 'xterm' },
        extendEnv: false,
        reject: false,
      });
      expect(r.exitCode).toBe(124);
      expect(r.stdout).toContain('started');
      expect(r.stdout).toContain('sparehand: stopped: the command ran past --timeout 4s; nothing was brought back');
      const { entry } = await lastLogged(w.wh.env);
      expect(entry).toMatchObject({ where: 'w0', exit: 124 });
      expect(entry.runMs).toBeGreaterThan(2000);
    },
  );
});
