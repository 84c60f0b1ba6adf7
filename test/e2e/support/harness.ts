// One end-to-end run of a real coding-agent CLI: a throwaway HOME and project, the fake model, the CLI run
// non-interactively with a timeout in its own process group, and a check that nothing it started is left.
import { execa } from 'execa';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeModel, type FakeModelOptions, startFakeModel } from '../fake-model/server.js';
import { type Egress, startEgress } from './egress.js';
import { killGroup, killPid, type ProcessInfo, processesWithEnv, waitForNone } from './processes.js';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(REPO, 'bin', 'sparehand.js');
export const MARKER = 'SPAREHAND_E2E_MARK';

// The project's test script says whether it ran inside `sparehand run`.
export const PROJECT_TEST_SCRIPT = `node -e "console.log('SPAREHAND_RUN=' + (process.env.SPAREHAND_RUN||'unset'))"`;
export const PROMPT = 'Run the project tests with npm test and tell me the result.';

/** Where scripts/e2e-setup.js put the CLIs (same rule as the script). */
export function e2eCache(): string {
  return process.env.SPAREHAND_E2E_CACHE || join(process.env.HOME || homedir(), '.cache', 'sparehand-e2e');
}

/** Whether the setup installed a tool, and if not, why (the machine's fault: the test is skipped). */
export function toolInstall(tool: string): { ok: true; prefix: string; bin: string } | { ok: false; reason: string } {
  const prefix = join(e2eCache(), tool);
  const statusPath = join(prefix, 'e2e-status.json');
  if (!existsSync(statusPath)) return { ok: false, reason: `${tool} is not installed in ${e2eCache()}: run npm run e2e:setup` };
  const status = JSON.parse(readFileSync(statusPath, 'utf8')) as { ok: boolean; reason?: string };
  if (!status.ok) return { ok: false, reason: status.reason ?? `${tool} could not be installed` };
  return { ok: true, prefix, bin: join(prefix, 'node_modules', '.bin') };
}

export interface Sandbox {
  root: string;
  home: string;
  project: string;
  /** A folder holding a `sparehand` command, as a user's global install would put on PATH. */
  binDir: string;
  mark: string;
  fake: FakeModel;
  /** The recording proxy every call out goes to. */
  egress: Egress;
}

/**
 * A throwaway HOME and npm project, and a fake model playing the script. `under`: the folder it is made in (the
 * system temp folder by default; a coding tool's sandbox leaves /tmp writable, where users' HOMEs are not).
 */
export async function makeSandbox(model: FakeModelOptions = {}, under = tmpdir()): Promise<Sandbox> {
  const root = mkdtempSync(join(under, 'sparehand-e2e-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  const binDir = join(root, 'bin');
  for (const dir of [home, project, binDir, join(root, 'tmp')]) mkdirSync(dir, { recursive: true });
  symlinkSync(BIN, join(binDir, 'sparehand'));
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'e2e-project', version: '1.0.0', private: true, scripts: { test: PROJECT_TEST_SCRIPT } }, null, 2)}\n`,
  );
  // The run's mark in the project: its copy on the shared test worker is found by it (worker.ts hasCopy).
  const mark = randomUUID();
  writeFileSync(join(project, 'README.md'), `# e2e project\n\n${mark}\n`);
  await execa('git', ['init', '-q'], { cwd: project });
  const fake = await startFakeModel({ command: 'npm test', ...model });
  const egress = await startEgress();
  return { root, home, project, binDir, mark, fake, egress };
}

/** The base environment of every run: nothing from the caller's but what a tool needs to start. */
export function baseEnv(box: Sandbox, toolBin: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: box.home,
    PATH: [toolBin, box.binDir, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    // The tools' temporary files (Gemini's error reports, …) go with the sandbox.
    TMPDIR: join(box.root, 'tmp'),
    NO_COLOR: '1',
    CI: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    [MARKER]: box.mark,
    ...box.egress.env,
    ...extra,
  };
}

export interface RunResult {
  /** With `trace`: the argv of every program the CLI and what it started ran (each successful execve). */
  execs?: string[][];
  exitCode?: number;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Processes left running after the CLI ended, other than the ones the tool is known to leave. */
  leftovers: ProcessInfo[];
  /** Known daemons that were ended by their pid. */
  ended: ProcessInfo[];
}

/** Ends the shared ssh connections sparehand keeps up for its next run (in $HOME, where the runs' HOME keeps them). */
const STOP_SHARED = 'for s in "$HOME"/.cache/sparehand/ssh/*; do [ -S "$s" ] && ssh -o ControlPath="$s" -O exit sparehand-worker 2>/dev/null; done; true';

/** Runs the CLI in its own process group, with a timeout; ends the group and known daemons afterwards. */
export async function runTool(
  box: Sandbox,
  file: string,
  args: string[],
  env: Record<string, string>,
  opts: { timeoutMs?: number; knownDaemons?: RegExp[]; cwd?: string; trace?: boolean } = {},
): Promise<RunResult> {
  // Every program started, counted by strace around the CLI (-f: its children too; -s: whole arguments). strace waits for
  // all it follows, so sparehand's shared ssh connections (left up for the next run) are ended inside it, once the CLI is.
  const trace = opts.trace ? join(box.root, 'execve.trace') : undefined;
  const then = `status=$?; ${STOP_SHARED}; exit $status`;
  const [cmd, argv] = trace
    ? ['strace', ['-f', '-qq', '-s', '65536', '-e', 'trace=execve', '-o', trace, 'sh', '-c', `"$@"; ${then}`, 'sh', file, ...args]]
    : [file, args];
  const child = execa(cmd, argv, {
    cwd: opts.cwd ?? box.project,
    env,
    extendEnv: false,
    detached: true,
    stdin: 'ignore',
    reject: false,
    all: false,
    timeout: opts.timeoutMs ?? 180_000,
    killSignal: 'SIGKILL',
  });
  const pgid = child.pid;
  const result = await child;
  if (pgid) killGroup(pgid);
  if (!trace) await execa('sh', ['-c', STOP_SHARED], { env, extendEnv: false, reject: false });
  const ended: ProcessInfo[] = [];
  for (const p of processesWithEnv(MARKER, box.mark)) {
    if ((opts.knownDaemons ?? []).some((re) => re.test(p.cmdline))) {
      killPid(p.pid);
      ended.push(p);
    }
  }
  const leftovers = await waitForNone(MARKER, box.mark, 3000);
  for (const p of leftovers) killPid(p.pid);
  return {
    ...(trace ? { execs: execsIn(readFileSync(trace, 'utf8')) } : {}),
    exitCode: result.exitCode,
    timedOut: Boolean(result.timedOut),
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    leftovers,
    ended,
  };
}

/** A program start of sparehand's: its script or its link run, or a shell told to run it. */
export const startsSparehand = (argv: readonly string[]): boolean =>
  argv.some((a) => /(^|\/)sparehand(\.js)?$/.test(a) || /(^|[\s/"'])sparehand(\.js)?["']?\s+(agent|run)\b/.test(a));

/** A start of `sparehand agent hook` (the hook process), directly or through a shell. */
export const startsHook = (argv: readonly string[]): boolean => /(^|[\s/"'])sparehand(\.js)?["']?\s+agent\s+hook\b/.test(argv.join(' '));

/** The argv of each successful execve in strace's output (`PID execve("file", ["arg", …], …) = 0`). */
export function execsIn(trace: string): string[][] {
  // strace writes C escapes; JSON reads the common ones (\n, \t, \", \\), and a rare other stays as written.
  const unquote = (q: string): string => {
    try {
      return JSON.parse(`"${q}"`) as string;
    } catch {
      return q;
    }
  };
  return trace
    .split('\n')
    .map((line) => /execve\("(?:[^"\\]|\\.)*", \[(.*)\], .*\) = 0$/.exec(line)?.[1])
    .filter((list): list is string => list !== undefined)
    .map((list) => [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => unquote(m[1]!)));
}

/** Everything a failing test should print: the model's view, and the CLI's own output. */
export function explain(box: Sandbox, run: RunResult | undefined): string {
  const tail = (s: string) => (s.length > 3000 ? `…${s.slice(-3000)}` : s);
  return [
    box.fake.report(),
    `calls out through the proxy: ${box.egress.attempts.length ? box.egress.attempts.join(', ') : 'none'}`,
    run ? `CLI exit ${run.exitCode}${run.timedOut ? ' (timed out)' : ''}` : 'CLI did not run',
    run ? `CLI stdout:\n${tail(run.stdout)}` : '',
    run ? `CLI stderr:\n${tail(run.stderr)}` : '',
    run?.ended.length ? `known daemons ended by pid: ${run.ended.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}` : '',
    run?.leftovers.length ? `left running: ${JSON.stringify(run.leftovers)}` : '',
    run?.execs ? `programs started: ${run.execs.length}; of sparehand's: ${JSON.stringify(run.execs.filter(startsSparehand))}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Closes the fake model and removes the throwaway folders. */
export async function disposeSandbox(box: Sandbox): Promise<void> {
  await box.fake.close();
  await box.egress.close();
  if (!process.env.SPAREHAND_E2E_KEEP) rmSync(box.root, { recursive: true, force: true });
}
