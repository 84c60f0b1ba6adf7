// Which rsync each side has, and what the way up may ask of the pair (pure). A Mac ships openrsync (macOS 15.4
// and later) or GNU rsync 2.6.9 as /usr/bin/rsync; Linux has GNU rsync 3. docs/workers.md "From a Mac".
import { LOGIN_ENV_SECONDS } from './worker/parts.js';

export type RsyncFlavour = 'gnu' | 'openrsync' | 'unknown';

export interface RsyncInfo {
  flavour: RsyncFlavour;
  /** GNU rsync's version ("3.2.7"); for openrsync the GNU version it says it is compatible with, if it says. */
  version: string | null;
  protocol: number | null;
  /** The program: an absolute path here; on a worker `rsync` (found on its PATH) or an absolute path. */
  path: string;
}

/**
 * Reads `rsync --version` (stdout and stderr together). GNU: `rsync  version 3.2.7  protocol version 31`.
 * openrsync upstream: `openrsync: protocol version 27` (on stderr); Apple's adds `rsync version 2.6.9 compatible`
 * (https://rsyncui.netlify.app/docs/admin/, read 2026-12-01). Undefined when the output is empty (no program).
 */
export function parseRsyncVersion(output: string, path: string): RsyncInfo | undefined {
  const open = /^openrsync:?\s+protocol version (\d+)/m.exec(output);
  if (open) {
    const compatible = /rsync version (\d+\.\d+\.\d+)\S* compatible/.exec(output);
    return { flavour: 'openrsync', version: compatible?.[1] ?? null, protocol: Number(open[1]), path };
  }
  const gnu = /^rsync\s+version\s+v?(\d+\.\d+\.\d+\S*)\s+protocol version (\d+)/m.exec(output);
  if (gnu) return { flavour: 'gnu', version: gnu[1] as string, protocol: Number(gnu[2]), path };
  return output.trim() ? { flavour: 'unknown', version: null, protocol: null, path } : undefined;
}

/** `rsync 3.2.7`, `openrsync (protocol 29)`, `an unknown rsync`: for messages. */
export function rsyncLabel(info: RsyncInfo): string {
  if (info.flavour === 'gnu') return `rsync ${info.version}`;
  if (info.flavour === 'openrsync') return `openrsync (protocol ${info.protocol})`;
  return 'an unknown rsync';
}

/** GNU rsync 3 or later: --delete-delay, and .gitignore read by rsync itself on both sides. */
export const isGnu3 = (info: RsyncInfo): boolean => info.flavour === 'gnu' && Number(info.version?.split('.')[0]) >= 3;

/**
 * What the way up asks of this pair of rsyncs (every choice works with each of the three). `.gitignore` is always
 * git's own reading: git lists the ignored paths here and every rsync gets them as excludes (rsync's own
 * `dir-merge` reading differs from git's: it knows no `!` lines and drops tracked files that match a pattern;
 * openrsync refuses it against GNU rsync either way, seen 2026-12-01).
 */
export interface UpPlan {
  /** rsync 2.6.9 has no --delete-delay; --delete-after deletes at the same moment, after one more pass. */
  del: '--delete-delay' | '--delete-after';
  /** How rsync splits its -e value: GNU reads quotes; openrsync splits on blanks and nothing else (fargs.c). */
  rsh: 'quoted' | 'blanks';
}

export function upPlan(here: RsyncInfo, there: RsyncInfo): UpPlan {
  const delay = (i: RsyncInfo) => isGnu3(i) || i.flavour === 'openrsync';
  return {
    del: delay(here) && delay(there) ? '--delete-delay' : '--delete-after',
    rsh: here.flavour === 'gnu' ? 'quoted' : 'blanks',
  };
}

/**
 * Where a worker's rsync may be besides its PATH (and its login PATH, which the probe asks last): Homebrew (Apple silicon, Intel) and MacPorts. A Mac's
 * non-interactive ssh session has only /usr/bin:/bin:/usr/sbin:/sbin on PATH, so `brew install rsync` is found
 * here without any setup.
 */
export const WORKER_RSYNC_CANDIDATES: readonly string[] = ['rsync', '/opt/homebrew/bin/rsync', '/usr/local/bin/rsync', '/opt/local/bin/rsync'];

/**
 * Shell (sh or bash) that prints, for each candidate there, `rsync-path=P` then its version lines, then `rsync-end`;
 * when there is none, the rsync on the owner's login PATH (the PATH the command runs with: lib/remote/login-env.ts),
 * by its absolute path since rsync up runs in the non-login session. The login shell gets LOGIN_ENV_SECONDS at most,
 * in a process group of its own that goes with it (a profile that hangs, or starts something that keeps the pipe).
 */
export const WORKER_RSYNC_PROBE = `found=
for r in ${WORKER_RSYNC_CANDIDATES.join(' ')}; do
  command -v "$r" >/dev/null 2>&1 || continue
  found=1; echo "rsync-path=$r"; "$r" --version 2>&1 | head -n 2; echo rsync-end
done
if [ -z "$found" ]; then
  r=$(perl -e '$s = shift; $p = fork; if (!$p) { setpgrp(0, 0); open(STDIN, "<", "/dev/null"); exec @ARGV; exit 127 } $SIG{ALRM} = sub { kill "KILL", -$p; exit 1 }; alarm $s; waitpid($p, 0)' ${LOGIN_ENV_SECONDS} "\${SHELL:-bash}" -l -c 'command -v rsync' 2>/dev/null)
  r=\${r##*
}
  case $r in /*) [ -x "$r" ] && { echo "rsync-path=$r"; "$r" --version 2>&1 | head -n 2; echo rsync-end; };; esac
fi`;

/** The worker's rsync from the probe's output: the first GNU rsync 3 found, else the first one found. */
export function pickWorkerRsync(output: string): RsyncInfo | undefined {
  const found: RsyncInfo[] = [];
  for (const m of output.matchAll(/^rsync-path=(.*)\n([\s\S]*?)^rsync-end$/gm)) {
    const info = parseRsyncVersion(m[2] as string, m[1] as string);
    if (info) found.push(info);
  }
  return found.find(isGnu3) ?? found[0];
}

/** What an rsync short of GNU rsync 3 changes, with the fix; empty for GNU rsync 3. `side`: `here` or `on the worker`. */
export function rsyncNotes(info: RsyncInfo, side: 'here' | 'on the worker'): string[] {
  const brew = side === 'here' ? '`brew install rsync`' : '`brew install rsync` on the worker (sparehand then finds /opt/homebrew/bin/rsync by itself)';
  if (info.flavour === 'openrsync') {
    return [
      `rsync ${side} is ${rsyncLabel(info)}: runs work the same (git lists what .gitignore keeps out, whichever rsync is there). GNU rsync is the one sparehand is tested with most: ${brew}`,
    ];
  }
  if (info.flavour === 'gnu' && !isGnu3(info)) {
    return [`rsync ${side} is ${info.version}: runs work, deleting after the transfer (one more pass). For rsync 3: ${brew}`];
  }
  if (info.flavour === 'unknown')
    return [`rsync ${side} (${info.path}) is not one sparehand knows: runs use the options every rsync has. GNU rsync 3 is known`];
  return [];
}
