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
  /**
   * The real process's file descriptors, when this is the process context: the hook reads and writes them
   * directly, because creating process.stdin/stdout streams costs more than the rest of the hook.
   */
  fds?: { stdin: number; stdout: number; stderr: number };
}

/** The real process as a Context; streams are created only when first used (they are slow to set up). */
export function processContext(): Context {
  const env = process.env;
  return {
    home: env.HOME || env.USERPROFILE || '/',
    cwd: process.cwd(),
    env,
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stderrIsTTY() {
      return Boolean(process.stderr.isTTY);
    },
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    fds: { stdin: 0, stdout: 1, stderr: 2 },
  };
}

/** One `sparehand:` line on stderr: the only way sparehand speaks while a command owns stdout. */
export function say(ctx: Pick<Context, 'stderr'>, message: string): void {
  ctx.stderr.write(`sparehand: ${message}\n`);
}

/** A path as people write it: `~/…` under HOME. */
export const tilde = (ctx: Pick<Context, 'home'>, p: string): string => (p.startsWith(`${ctx.home}/`) ? `~${p.slice(ctx.home.length)}` : p);
