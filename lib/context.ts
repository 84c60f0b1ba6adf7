// Everything that differs between a user's shell and a test: made once at the edge, passed down.
import type { Readable, Writable } from 'node:stream';

export interface Context {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Whether stderr is a terminal (progress lines, colour). */
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

export function processContext(): Context {
  const env = process.env;
  return {
    home: env.HOME || env.USERPROFILE || '/',
    cwd: process.cwd(),
    env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
  };
}

/** One `sparehand:` line on stderr: the only way sparehand speaks while a command owns stdout. */
export function say(ctx: Pick<Context, 'stderr'>, message: string): void {
  ctx.stderr.write(`sparehand: ${message}\n`);
}
