// Starting programs: the one place in lib/ that starts one (test/style.test.ts checks it), and that knows how a
// child's end becomes an exit status. Always an argv, never a shell of the caller's making.
import { type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions, execFileSync, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { SparehandError } from './errors.js';

/** Exit status as a shell reports it: the code, or 128+N for a signal. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? constants.signals[signal] : undefined;
  return 128 + (n ?? 0);
}

export interface ProcResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Stopped because `timeoutMs` passed. */
  timedOut?: boolean;
}

/** What `cmd args` prints on stdout, for the few callers that cannot wait (its stderr is dropped); throws when it fails. */
export function outputOfSync(cmd: string, args: readonly string[], opts: { env: NodeJS.ProcessEnv; timeoutMs: number }): string {
  return execFileSync(cmd, args, { env: opts.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: opts.timeoutMs });
}

/** Starts `cmd` with `args` for a caller that streams its pipes itself (sessions, rsync's peers, a local command). */
export function start(cmd: string, args: readonly string[], opts: SpawnOptions & { stdio: ['pipe', 'pipe', 'pipe'] }): ChildProcessWithoutNullStreams;
export function start(cmd: string, args: readonly string[], opts: SpawnOptions): ChildProcess;
export function start(cmd: string, args: readonly string[], opts: SpawnOptions): ChildProcess {
  return spawn(cmd, args, { ...opts, shell: false });
}

/**
 * Runs `"$@"` and stops it when this process dies, even by SIGKILL: sparehand holds the shell's stdin open, and
 * end of input there means sparehand is gone. (A program left running after sparehand, such as an rsync still
 * writing into a worker's slot, would race the next run there.)
 */
const TIED = 'exec 3<&0; "$@" </dev/null & p=$!; { read -r _ <&3; kill -TERM "$p" 2>/dev/null; } & w=$!; wait "$p"; s=$?; kill "$w" 2>/dev/null; exit "$s"';

export interface CaptureOptions {
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Aborting stops the program (and what it started) with SIGTERM. */
  signal?: AbortSignal;
  /** Stop the program if sparehand itself dies (see TIED); no `input` then. */
  tied?: boolean;
  /** Stop it (SIGTERM) after this long; the result says `timedOut`. */
  timeoutMs?: number;
}

/** Runs a program with argv, collecting its output (never through a shell of ours, but for `tied`'s fixed one). */
export function capture(cmd: string, args: readonly string[], opts: CaptureOptions = {}): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const tied = opts.tied === true;
    const child = tied
      ? spawn('sh', ['-c', TIED, 'sh', cmd, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env, cwd: opts.cwd, detached: true })
      : spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env, cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    const abort = () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      try {
        if (tied) process.kill(-child.pid, 'SIGTERM');
        else child.kill('SIGTERM');
      } catch {
        /* already gone */
      }
    };
    if (opts.signal?.aborted) abort();
    opts.signal?.addEventListener('abort', abort, { once: true });
    let timedOut = false;
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            abort();
          }, opts.timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new SparehandError('IO', `cannot start ${cmd}: ${e.message}`, { cause: e }));
    });
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      opts.signal?.removeEventListener('abort', abort);
      clearTimeout(timer);
      if (tied) child.stdin.destroy();
      resolve({ code: exitStatus(code, signal), stdout, stderr, ...(timedOut ? { timedOut } : {}) });
    };
    child.once('close', finish);
    // Stopped on purpose: its end is enough. (An ssh that went through a shared connection handed its output to the
    // master, which keeps those pipes open as long as the other side runs: waiting for them to close could be forever.)
    child.once('exit', (code, signal) => {
      if (!opts.signal?.aborted && !timedOut) return;
      setTimeout(() => {
        finish(code, signal);
        child.stdout.destroy();
        child.stderr.destroy();
      }, 200).unref();
    });
    child.stdin.on('error', () => undefined);
    if (!tied) child.stdin.end(opts.input ?? '');
  });
}
