// Runs the built CLI (bin/sparehand.js) as a real process, as users and coding tools do.
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';

export const BIN = fileURLToPath(new URL('../../bin/sparehand.js', import.meta.url));

/** The running process (execa's: await it for the result, or .kill() it), with stdin given `input` and then closed. */
export function sparehand(args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}) {
  return execa(process.execPath, [BIN, ...args], {
    env: opts.env ?? {},
    extendEnv: opts.env === undefined,
    cwd: opts.cwd,
    input: opts.input ?? '',
    reject: false,
    stripFinalNewline: false,
  });
}

/** The shell line that runs the built CLI with `args` (for `script -qec`), quoted so any path (spaces, quotes) survives. */
export function cliLine(args: readonly string[]): string {
  return quote([process.execPath, BIN, ...args]);
}
