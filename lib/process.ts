// Starting programs: the one place below lib/run and lib/remote that knows how a child's end becomes an exit status.
import { spawn } from 'node:child_process';
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
}

/** Runs a short-lived program with argv, collecting its output (never through a shell). */
export function capture(cmd: string, args: readonly string[], opts: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env, cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (e) => reject(new SparehandError('IO', `cannot start ${cmd}: ${e.message}`, { cause: e })));
    child.once('close', (code, signal) => resolve({ code: exitStatus(code, signal), stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}
