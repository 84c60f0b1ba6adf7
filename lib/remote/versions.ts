// Toolchain versions on a worker, asked under its owner's login environment (as a run would find the programs).
import { quote } from 'shell-quote';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { connectionFor, sshEnv } from './connection.js';
import { LOGIN_ENV } from './login-env.js';
import { remotePath } from './ssh-args.js';
import { captureRemote } from './transport.js';
import { workerDir } from './workers.js';

/** `versions CMD…`: one `version<TAB>CMD<TAB>first line` per command (the line empty when it failed). */
export const VERSIONS = String.raw`
versions() {
  local c v
  for c in "$@"; do
    if v=$(bash -c "$c" 2>&1 </dev/null); then printf 'version\t%s\t%s\n' "$c" "$(printf '%s\n' "$v" | head -n 1)"; else printf 'version\t%s\t\n' "$c"; fi
  done
}
`;

/** What `versions` printed: command → first line, or null when it failed. */
export function parseVersions(stdout: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const line of stdout.split('\n')) {
    const [tag, command, answer] = line.split('\t');
    if (tag === 'version' && command !== undefined) out[command] = answer || null;
  }
  return out;
}

/** Asks the worker (over the shared connection, which must be up) for each command's version line. */
export async function workerVersions(ctx: Context, worker: Worker, commands: readonly string[]): Promise<Record<string, string | null>> {
  const script = `${LOGIN_ENV}${VERSIONS}login_env "$1/.login-env"; shift; versions "$@"`;
  const remote = quote(['bash', '-c', script, 'sparehand', remotePath(workerDir(worker)), ...commands]);
  return parseVersions((await captureRemote(sshEnv(ctx), worker, connectionFor(ctx, worker), remote)).stdout);
}
