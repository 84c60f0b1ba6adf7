// rsync of the project here to its slot folder on a worker, over the shared ssh connection, with whatever rsync
// each side has (rsync-flavour.ts); a failure names the side that has the problem.
import { rmSync, writeFileSync } from 'node:fs';
import { scratchFolder } from '../state/own-folder.js';
import { join } from 'node:path';
import type { Config, Worker } from '../config.js';
import { SparehandError } from '../errors.js';
import { type ProcResult, capture } from '../process.js';
import { gitRoot } from '../project-root.js';
import { rsyncUpArgs } from './rsync-args.js';
import { type RsyncInfo, rsyncLabel, upPlan } from '../remote/rsync-flavour.js';
import type { Connection } from '../remote/ssh-args.js';
import { NO_SECRETS, type SecretPlan, anchored } from './held-back.js';
import { ignoredPatterns } from '../remote/sync-rules.js';

export interface SyncTarget {
  worker: Worker;
  conn: Connection;
  config: Config;
  localRoot: string;
  remoteRoot: string;
  env: NodeJS.ProcessEnv;
  /** Paths the copy keeps that are not here (the ancestor's, lib/sync/ancestor.ts keptPaths): neither sent nor deleted there. */
  keep?: readonly string[];
  /** Files the worker's install reads (lock files, relative to the root): sent even when git ignores them. */
  inputs?: readonly string[];
  /** The secret list's tracked files sent, and the files held back for what they hold (held-back.ts). */
  secrets?: SecretPlan;
}

/** The rsync on each side (rsync-found.ts). */
export interface Rsyncs {
  here: RsyncInfo;
  there: RsyncInfo;
}

/**
 * Sends the project: changed files only, deletions mirrored, ignored and excluded files on the worker kept
 * (secrets there deleted), and so are the files the copy keeps for itself (`keep`). What is sent is git's reading of the project: tracked files always, untracked ones
 * unless ignored. rsync stops when `signal` aborts, and when sparehand dies. `ignored`: git's list, when the caller has it
 * already (warm-send.ts fingerprint).
 */
export async function syncUp(t: SyncTarget, rsyncs: Rsyncs, signal?: AbortSignal, ignored?: string): Promise<void> {
  const plan = upPlan(rsyncs.here, rsyncs.there);
  const scratch = scratchFolder(t.localRoot, 'sparehand-up-');
  try {
    const ignoredFile = join(scratch, 'ignored');
    const kept = (t.keep ?? []).map((p) => `${p}\0`).join('');
    writeFileSync(ignoredFile, ignoredPatterns(`${ignored ?? (await gitIgnored(t.localRoot, t.env, scratch))}${kept}`, t.inputs), { mode: 0o600 });
    const secrets = t.secrets ?? NO_SECRETS;
    const hidden = anchored(secrets.held.map((h) => h.path));
    const up = rsyncUpArgs(t.worker, t.conn, t.config, t.localRoot, t.remoteRoot, {
      plan,
      there: rsyncs.there.path,
      ignoredFile,
      hidden,
      tracked: secrets.sent,
    });
    const r = await capture(rsyncs.here.path, up.args, { env: { ...t.env, ...up.env }, tied: true, ...(signal ? { signal } : {}) });
    // 24: some files vanished while being sent (an editor's temp file): harmless, the next run sends the rest.
    if (r.code === 0 || r.code === 24 || signal?.aborted) return;
    throw syncFailure(t.worker, rsyncs, r);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * What git ignores under `root` (.gitignore files, .git/info/exclude, the user's excludes file), as
 * `git ls-files -z --others --ignored --exclude-standard --directory` prints it. Outside a repository, an empty
 * one made in `scratch` lends git its rules.
 */
export async function gitIgnored(root: string, env: NodeJS.ProcessEnv, scratch: string): Promise<string> {
  const list = ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'];
  let args = ['-C', root, ...list];
  if (gitRoot(root) !== root) {
    const empty = join(scratch, 'git');
    await capture('git', ['init', '-q', '--bare', empty], { env });
    args = [`--git-dir=${empty}`, `--work-tree=${root}`, '-C', root, ...list];
  }
  let r: ProcResult;
  try {
    r = await capture('git', args, { env });
  } catch (e) {
    r = { code: 127, stdout: '', stderr: (e as Error).message };
  }
  if (r.code === 0) return r.stdout;
  throw new SparehandError('SYNC', `cannot list the files .gitignore ignores here (git: ${r.stderr.trim().split('\n')[0]})`, {
    hint: 'install git here (on a Mac: `xcode-select --install`): sparehand sends what git sees as the project',
  });
}

/** rsync's stderr without a usage text (openrsync prints all its options, indented, when it refuses one). */
function meaningfulLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.trim() && !/^usage:/i.test(l) && !/^\s/.test(l))
    .map((l) => l.trim());
}

/** The error for a failed sync, naming the side at fault where rsync's words tell it. */
export function syncFailure(worker: Worker, rsyncs: Rsyncs, r: Pick<ProcResult, 'code' | 'stderr'>): SparehandError {
  const lines = meaningfulLines(r.stderr);
  const there = rsyncs.there.path;
  const missing = lines.find((l) => l.includes(there) && /command not found|not found|no such file or directory/i.test(l));
  if (missing) {
    return new SparehandError('SYNC', `worker "${worker.name}" has no rsync at ${there} any more (${missing})`, {
      hint: `install rsync on the worker, or run \`sparehand worker check ${worker.name}\` to look for it again`,
    });
  }
  const shown = lines
    .filter((l) => !/^rsync error: (error in rsync protocol data stream|some files)/.test(l))
    .slice(0, 2)
    .join(' / ');
  const message = `sending the project to worker "${worker.name}" failed (rsync exit ${r.code}): ${shown || 'no message'}`;
  const sides = `rsync here: ${rsyncLabel(rsyncs.here)} (${rsyncs.here.path}); on the worker: ${rsyncLabel(rsyncs.there)} (${there})`;
  // An option refused by the program here starts with its name; a refusal by the worker's comes through ssh.
  const option = lines.find((l) => /(unrecognized|invalid|unknown) option|syntax or usage error/.test(l));
  const ownWords = (l: string) => l.startsWith(`${rsyncs.here.path}:`) || /^(open)?rsync: (?!on remote machine)/.test(l) || l.includes('[client=');
  const remote =
    lines.some((l) => /on remote machine|\[(receiver|server|Receiver|generator)[\]=]|No space left|Read-only file system/.test(l)) ||
    (option !== undefined && !ownWords(option));
  const here = !remote && option !== undefined;
  if (remote)
    return new SparehandError('SYNC', message, { hint: `the problem is on the worker (${sides}); \`sparehand worker check ${worker.name}\` looks at it` });
  if (here) return new SparehandError('SYNC', message, { hint: `the problem is here (${sides})` });
  return new SparehandError('SYNC', message, { hint: `${sides}; \`sparehand worker check ${worker.name}\` looks at the worker again` });
}
