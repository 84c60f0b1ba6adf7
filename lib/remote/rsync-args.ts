// What is synced, as rsync filter rules and argument arrays (pure; see docs/run.md "What is synced").
import type { Config, Worker } from '../config.js';
import { type Connection, rsyncPathMaking, rsyncRsh } from './ssh-args.js';

/** Files that look like secrets: never sent unless `sync.sendSecrets`. */
export const SECRET_PATTERNS = ['.env', '.env.*', '.envrc', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '*.pem', '*.key', '*.p12', '*.pfx', '.netrc', '.npmrc', '.pypirc'];

/** Dependency folders: installed on the worker from the lock file, never copied (unless `sync.copyDependencies`). */
export const DEPENDENCY_DIRS = ['node_modules/', '.venv/', 'bower_components/', '.pnpm-store/', '.yarn/cache/', '.yarn/unplugged/'];

/** Caches and version control: they stay where they are made, in both directions. */
export const CACHE_DIRS = ['.git/', '.hg/', '.svn/', '__pycache__/', '.pytest_cache/', '.mypy_cache/', '.ruff_cache/', '.tox/', '.gradle/', '.turbo/', '.parcel-cache/', '.next/cache/', '.sparehand/'];

/** Filter rules common to both directions: excluded here are neither sent, brought back, nor deleted. */
export function fixedFilters(config: Config): string[] {
  const sync = config.sync ?? {};
  const rules: string[] = [];
  if (!sync.sendSecrets) rules.push(...SECRET_PATTERNS.map((p) => `- ${p}`));
  if (!sync.copyDependencies) rules.push(...DEPENDENCY_DIRS.map((p) => `- ${p}`));
  rules.push(...CACHE_DIRS.map((p) => `- ${p}`));
  rules.push(...(sync.exclude ?? []).map((p) => `- ${p}`));
  return rules;
}

/**
 * Sending: .gitignore'd files are not sent and, on the worker, not deleted (so remote build caches survive).
 * Coming back: .gitignore'd files the command made DO come back (build outputs), but local ignored files are
 * protected from deletion (`r`: the rule applies on the receiving side only).
 */
export function filterArgs(config: Config, direction: 'up' | 'back'): string[] {
  const rules = [...fixedFilters(config), direction === 'up' ? ':- .gitignore' : ':-r .gitignore'];
  return rules.map((r) => `--filter=${r}`);
}

const COMMON = ['-a', '--delete-delay', '--protect-args'];

/** One line per changed item: `%i|%M|%l|%n` (change, mtime, size, name). */
export const ITEM_FORMAT = '--out-format=%i|%M|%l|%n';

/** Local project root → the slot folder on the worker. */
export function rsyncUpArgs(worker: Worker, conn: Connection, config: Config, localRoot: string, remoteRoot: string): string[] {
  return [
    ...COMMON,
    '-e', rsyncRsh(worker, conn),
    `--rsync-path=${rsyncPathMaking(remoteRoot)}`,
    ...filterArgs(config, 'up'),
    `${localRoot}/`,
    `${worker.destination}:${remoteRoot}/`,
  ];
}

/** A dry run from the worker back: lists what would change here, one `%i|%M|%l|%n` line per item. */
export function rsyncBackListArgs(worker: Worker, conn: Connection, config: Config, localRoot: string, remoteRoot: string): string[] {
  return [
    ...COMMON,
    '--dry-run',
    ITEM_FORMAT,
    '-e', rsyncRsh(worker, conn),
    ...filterArgs(config, 'back'),
    `${worker.destination}:${remoteRoot}/`,
    `${localRoot}/`,
  ];
}

/** Brings back exactly the files named on stdin (NUL-separated), nothing else; deletions are done by sparehand. */
export function rsyncBackArgs(worker: Worker, conn: Connection, localRoot: string, remoteRoot: string): string[] {
  return [
    '-a', '--protect-args', '--files-from=-', '--from0',
    '-e', rsyncRsh(worker, conn),
    `${worker.destination}:${remoteRoot}/`,
    `${localRoot}/`,
  ];
}
