// While a run installs its dependencies on the worker, `sparehand status` says so (the slot's record on the worker,
// `<dir>/.slots.d/<n>.run`), and shows the command once it runs; a --timeout reached meanwhile is a stop on that
// worker, logged as such. The install is the worker's own `npm` on its login PATH, held until the test lets it go.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../lib/run/run-log.js';
import { execa } from 'execa';
import { cliLine, sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { gitProject, until } from '../helpers/project.js';
import { type Sshd, startSshd, terminalsWork } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  // The worker owner's HOME: ~/bin/npm first on the login PATH. It says it started, in the folder the project's
  // `.mark` names, and waits there for `go` (at most 30 s).
  const home = tempDir('sparehand-worker-home-');
  writeFileSync(join(home, '.profile'), 'export PATH="$HOME/bin:$PATH"\n');
  tool(
    join(home, 'bin'),
    'npm',
    'm=$(cat .mark); touch "$m/installing"; i=0; while [ ! -e "$m/go" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; mkdir -p node_modules',
  );
  sshd = await startSshd({ home });
  wh = workerHome([sshd]);
});
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});

/** A project with a lock file (`npm ci` on the worker), and the folder its install and command mark. */
function lockedProject(): { proj: string; mark: string; at: (name: string) => boolean } {
  const mark = tempDir('sparehand-mark-');
  chmodSync(mark, 0o777);
  const proj = gitProject({ 'package.json': '{"name":"p","version":"1.0.0"}\n', 'package-lock.json': '{"lockfileVersion":3}\n', '.mark': mark });
  return { proj, mark, at: (name) => existsSync(join(mark, name)) };
}

type Busy = { slot: number; command: string; doing?: string };
async function busySlots(): Promise<{ runs: Busy[]; text: string }> {
  const json = JSON.parse((await sparehand(['status', '--json'], { env: wh.env })).stdout) as { workers: { runs: Busy[] }[] };
  const text = (await sparehand(['status'], { env: wh.env })).stdout;
  return { runs: json.workers[0]?.runs ?? [], text };
}

describe('status while a run installs its dependencies', () => {
  it('shows "installing dependencies (npm ci …)" until the command runs, then the command; the summary is as ever', async () => {
    const { proj, mark, at } = lockedProject();
    const command = `touch ${mark}/cmd; i=0; while [ ! -e ${mark}/end ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done`;
    const run = sparehand(['run', '--', command], { env: wh.env, cwd: proj });
    expect(await until(() => at('installing'), 20_000)).toBe(true);
    const installing = await busySlots();
    expect(installing.runs).toEqual([expect.objectContaining({ slot: 0, command, doing: 'installing dependencies (npm ci --no-audit --no-fund)' })]);
    expect(installing.text).toMatch(/^ {2}slot 0: installing dependencies \(npm ci --no-audit --no-fund\), for touch .* — .* on .*, for \d+s$/m);

    writeFileSync(join(mark, 'go'), '');
    expect(await until(() => at('cmd'), 20_000)).toBe(true);
    const running = await busySlots();
    expect(running.runs).toHaveLength(1);
    expect(running.runs[0]?.doing).toBeUndefined();
    expect(running.text).toMatch(/^ {2}slot 0: touch .* — /m);

    writeFileSync(join(mark, 'end'), '');
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('sparehand: installing dependencies on the worker: npm ci --no-audit --no-fund\n');
    expect(r.stderr).toMatch(/\nsparehand: ran on w0: sync \d+\.\ds, deps \d+\.\ds, run \d+\.\ds, 0 files back, 0 conflicts\n/);
  });

  it.runIf(terminalsWork())('in terminal mode too (the terminal session installs, in the slot the holding session claimed)', async () => {
    const { proj, mark, at } = lockedProject();
    const command = `touch ${mark}/cmd; i=0; while [ ! -e ${mark}/end ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done`;
    const run = execa('script', ['-qec', cliLine(['run', '--', command]), '/dev/null'], {
      cwd: proj,
      env: { ...wh.env, TERM: 'xterm' },
      extendEnv: false,
      reject: false,
    });
    expect(await until(() => at('installing'), 20_000)).toBe(true);
    expect((await busySlots()).runs).toEqual([expect.objectContaining({ command, doing: 'installing dependencies (npm ci --no-audit --no-fund)' })]);
    writeFileSync(join(mark, 'go'), '');
    expect(await until(() => at('cmd'), 20_000)).toBe(true);
    expect((await busySlots()).runs).toEqual([expect.not.objectContaining({ doing: expect.anything() })]);
    writeFileSync(join(mark, 'end'), '');
    expect((await run).exitCode).toBe(0);
  });

  it('a --timeout reached while it installs: stopped on that worker before the command started, and logged so', async () => {
    const { proj } = lockedProject();
    const r = await sparehand(['run', '--timeout', '4s', '--', 'true'], { env: wh.env, cwd: proj });
    const why = '--timeout 4s was reached before the command started on w0 (it was installing dependencies); nothing ran';
    expect([r.exitCode, r.stderr.split('\n').at(-2)]).toEqual([124, `sparehand: stopped: ${why}`]);
    const runs = (JSON.parse((await sparehand(['log', '--json'], { env: wh.env })).stdout) as { runs: LogEntry[] }).runs;
    expect(runs.at(-1)).toMatchObject({ where: 'w0', stopped: why, exit: 124 });
    expect(runs.at(-1)?.depsMs).toBeGreaterThan(500);
    const line = (await sparehand(['log'], { env: wh.env })).stdout.trim().split('\n').at(-2);
    expect(line).toContain(`  stopped on w0 (${why})  exit 124  `);
  });
});
