import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, cliLine } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { until } from '../helpers/project.js';
import { containerWorker } from '../helpers/container.js';
import { terminalsWork } from '../helpers/sshd.js';
import { sharedWorker } from '../helpers/worker-env.js';

export const w = sharedWorker();

/** Processes on the worker (this machine) whose command line starts with `marker`. */
function running(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', `^${marker.replace('.', '[.]')}`], { encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

/** Waits until both of longCommand()'s sleeps run on the worker (the run is killed if they never do). */
async function bothSleepsRunning(p: { kill: (s: NodeJS.Signals) => unknown }, marker: string): Promise<void> {
  const started = await until(() => running(marker).length === 2, 10_000);
  if (!started) p.kill('SIGKILL');
  expect(started).toBe(true);
}

/** A command that starts a background and a foreground sleep, each with a unique duration to find it by. */
function longCommand(): { cmd: string; marker: string } {
  const n = `${3000 + Math.floor(Math.random() * 900)}.${Date.now() % 1000}`;
  return { cmd: `sleep ${n}1 & sleep ${n}2; echo never`, marker: `sleep ${n}` };
}

function start(cmd: string, extra: string[] = []) {
  const proj = tempDir('sparehand-proj-');
  return execa(process.execPath, [BIN, 'run', ...extra, '--', cmd], { env: w.wh.env, extendEnv: false, cwd: proj, reject: false });
}

describe('stopping a remote command', () => {
  it('SIGINT (Ctrl-C) to sparehand stops the command and everything it started on the worker; exit 130', async () => {
    const { cmd, marker } = longCommand();
    const p = start(cmd);
    await bothSleepsRunning(p, marker);
    p.kill('SIGINT');
    const r = await p;
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe('');
    expect(await until(() => running(marker).length === 0, 5000)).toBe(true);
  });

  it('SIGKILL to sparehand (the caller dying) still stops everything on the worker', async () => {
    const { cmd, marker } = longCommand();
    const p = start(cmd);
    await bothSleepsRunning(p, marker);
    p.kill('SIGKILL');
    await p;
    expect(await until(() => running(marker).length === 0, 8000)).toBe(true);
  });

  it('--timeout stops it: exit 124 and a message', async () => {
    const { cmd, marker } = longCommand();
    const r = await start(cmd, ['--timeout', '3s']);
    expect(r.exitCode).toBe(124);
    expect(r.stderr).toContain('sparehand: stopped: the command ran past --timeout 3s; nothing was brought back');
    expect(await until(() => running(marker).length === 0, 5000)).toBe(true);
  });

  it('a command that ends normally leaves nothing running behind it', async () => {
    const { marker } = longCommand();
    const r = await start(`${marker}9 & echo done`);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('done');
    expect(await until(() => running(marker).length === 0, 5000)).toBe(true);
  });
});

describe.runIf(containerWorker() || terminalsWork())('stopping a command in terminal mode (ssh -tt)', () => {
  /** sparehand with a pseudo-terminal for stdin and stdout (`script`), as in an interactive shell. */
  function inTerminal(cmd: string) {
    const proj = tempDir('sparehand-proj-');
    const line = cliLine(['run', '--', cmd]);
    return execa('script', ['-qec', line, '/dev/null'], { cwd: proj, env: { ...w.wh.env, TERM: 'xterm' }, extendEnv: false, reject: false });
  }

  it('Ctrl-C at the terminal stops the command: exit 130, no ssh chatter', async () => {
    const { cmd, marker } = longCommand();
    const p = inTerminal(cmd);
    await bothSleepsRunning(p, marker);
    p.stdin?.write('\x03');
    const r = await p;
    expect(r.exitCode).toBe(130);
    expect(r.stdout).not.toContain('Shared connection');
    expect(await until(() => running(marker).length === 0, 5000)).toBe(true);
  });

  it('SIGINT sent to sparehand itself: exit 130, the command stopped', async () => {
    const { cmd, marker } = longCommand();
    const p = inTerminal(`${cmd} # ${marker}-here`);
    await bothSleepsRunning(p, marker);
    const pid = execFileSync('pgrep', ['-f', `^${process.execPath} ${BIN} run -- .*${marker}-here`], { encoding: 'utf8' })
      .trim()
      .split('\n')[0];
    process.kill(Number(pid), 'SIGINT');
    const r = await p;
    expect(r.exitCode).toBe(130);
    expect(await until(() => running(marker).length === 0, 5000)).toBe(true);
  });
});

describe('what the command leaves behind', () => {
  it('--timeout returns when the command is stopped, even with a process of its own session still holding the output', async () => {
    const t0 = Date.now();
    const r = await start('setsid sleep 25 & sleep 30', ['--timeout', '4s']);
    expect(r.exitCode).toBe(124);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a command that ends with a setsid process still writing returns at once, with its status', async () => {
    const t0 = Date.now();
    const r = await start('(setsid sh -c "sleep 20; echo late") & echo done; exit 4');
    expect([r.exitCode, r.stdout]).toEqual([4, 'done']);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
