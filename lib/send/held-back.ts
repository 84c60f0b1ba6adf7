// What git tracks is the project (docs/run.md "What is synced"): a tracked file is sent whatever its name (a
// committed `.npmrc` with `package-lock=false`, dotenv's `tests/.env` fixtures: everyone with the repository has
// them); the secret list (sync-rules.ts SECRET_PATTERNS) guards only what git does not track. The one exception: a
// file sent that way, or a settings file that only sometimes holds one (SECRET_BY_CONTENT), that holds a
// credential by its content (an npm or Yarn auth token, a private key) is held back, unless the project's config
// lists it (`projects.<folder>.sendHeldBack`).
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { capture } from '../process.js';
import { gitRoot } from '../project-root.js';
import { writeOwnFileSync } from '../fs-atomic.js';
import { OWN_FOLDER, ownFolder } from '../state/own-folder.js';
import { SECRET_BY_CONTENT, SECRET_PATTERNS, underMatcher } from '../remote/sync-rules.js';

export interface HeldFile {
  path: string;
  /** What it holds, as people read it: "an npm auth token". */
  holds: string;
}

/** What the way up does with the files the secret list names that git tracks, and with the settings files it reads. */
export interface SecretPlan {
  /** Tracked files the secret list names, sent (relative, '/'-separated). */
  sent: string[];
  /** Files held back for what they hold (never sent, deleted from the copy). */
  held: HeldFile[];
}

export const NO_SECRETS: SecretPlan = { sent: [], held: [] };

/** Credentials by their content: what makes a tracked file, or a settings file, held back. */
export const CREDENTIALS: ReadonlyArray<{ holds: string; re: RegExp }> = [
  { holds: 'an npm auth token', re: /(?:^|[\s:])_(?:authToken|auth|password)\s*=/m },
  { holds: 'a Yarn auth token', re: /^\s*npm(?:AuthToken|AuthIdent|Password)\s*:/m },
  { holds: 'a private key', re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/ },
];

/** How much of a file is read for a credential. */
const LOOK = 1024 * 1024;

/**
 * A quick test every path the secret list names passes (the longest literal of each pattern, in any case): most of
 * a large index is passed over without the whole match (100,000 paths: 14 ms, against 0.5 s; git's own pathspecs
 * for the list took 5.8 s).
 */
function roughTest(patterns: readonly string[]): RegExp {
  const plain = patterns.map((p) => p.replace(/\[(.)(.)\]/g, (m, a: string, b: string) => (a.toLowerCase() === b.toLowerCase() ? a.toLowerCase() : m)));
  const literals = plain.map((p) => p.split(/[*?[\]/]/).reduce((a, b) => (b.length > a.length ? b : a), ''));
  return new RegExp(literals.map((l) => l.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|'), 'i');
}

/** The tracked files the secret list names: from git's index, kept with the index's stat (a changed index is read again). */
async function trackedNamed(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const elsewhere = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE'].some((v) => env[v]);
  let key: string | undefined;
  try {
    const st = lstatSync(join(root, '.git', 'index'));
    key = elsewhere ? undefined : `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    key = undefined;
  }
  const cache = join(root, OWN_FOLDER, 'sync', 'tracked-secrets');
  if (key !== undefined) {
    try {
      const kept = JSON.parse(readFileSync(cache, 'utf8')) as { key?: unknown; tracked?: unknown };
      if (kept.key === key && Array.isArray(kept.tracked) && kept.tracked.every((p) => typeof p === 'string')) return kept.tracked as string[];
    } catch {
      /* none kept */
    }
  }
  const r = await capture('git', ['-C', root, 'ls-files', '-z'], { env }).catch(() => undefined);
  if (r?.code !== 0) return [];
  const rough = roughTest(SECRET_PATTERNS);
  const named = underMatcher(SECRET_PATTERNS);
  // A name that no rsync rule can carry as it is (a control character) stays unsent.
  const tracked = [...new Set(r.stdout.split('\0').filter((p) => p !== '' && rough.test(p) && named(p) && !/[\0-\x1f\x7f]/.test(p)))].sort();
  // Kept only where sparehand's folder is already (a look from `doctor` makes none).
  if (key !== undefined && existsSync(join(root, OWN_FOLDER)) && !('why' in ownFolder(root, 'sync'))) {
    try {
      writeOwnFileSync(cache, JSON.stringify({ key, tracked }));
    } catch {
      /* asked again next time */
    }
  }
  return tracked;
}

/** A regular file's first MiB (a link is sent as a link, never read), or undefined. */
function head(file: string): string | undefined {
  try {
    if (!lstatSync(file).isFile()) return undefined;
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(LOOK);
      return buf.subarray(0, readSync(fd, buf, 0, LOOK, 0)).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The credential `file` holds, or undefined. */
export function credentialIn(file: string): string | undefined {
  const text = head(file);
  return text === undefined ? undefined : CREDENTIALS.find((c) => c.re.test(text))?.holds;
}

/** The files the project's config sends although they hold a credential (`projects.<folder>.sendHeldBack`). */
export type SendHeldBack = readonly string[];

/**
 * What the way up does with the secret list's tracked files and the settings files read for their content, for the
 * project at `root`. With `sync.sendSecrets` nothing is held back (everything is sent). Outside a git repository
 * nothing is tracked: only the settings files are looked at.
 */
export async function secretPlan(root: string, env: NodeJS.ProcessEnv, config: Config, allowed: SendHeldBack): Promise<SecretPlan> {
  if (config.sync?.sendSecrets) return NO_SECRETS;
  const send = new Set(allowed.map((p) => p.replace(/^\.?\//, '')));
  const held: HeldFile[] = [];
  const sent: string[] = [];
  const tracked = gitRoot(root) === root ? await trackedNamed(root, env) : [];
  for (const p of tracked) {
    const holds = send.has(p) ? undefined : credentialIn(join(root, p));
    if (holds) held.push({ path: p, holds });
    else sent.push(p);
  }
  for (const { name, secret } of SECRET_BY_CONTENT) {
    if (send.has(name) || sent.includes(name) || held.some((h) => h.path === name)) continue;
    const text = head(join(root, name));
    if (text === undefined) continue;
    const holds = CREDENTIALS.find((c) => c.re.test(text))?.holds ?? (secret.test(text) ? 'a credential' : undefined);
    if (holds) held.push({ path: name, holds });
  }
  held.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { sent, held };
}

/** Anchored rsync patterns for `paths` (wildcards escaped, as sync-rules.ts ignoredPatterns does). */
export const anchored = (paths: readonly string[]): string[] => paths.map((p) => `/${/[*?[]/.test(p) ? p.replace(/[\\*?[]/g, '\\$&') : p}`);

/**
 * The run's line naming what is held back, with the setting that sends them (`project`: the project's key in the
 * config, `~/src/app`), or undefined when nothing is.
 */
export function heldBackLine(held: readonly HeldFile[], project: string, configFile: string): string | undefined {
  if (held.length === 0) return undefined;
  const shown = held.slice(0, 3).map((h) => `${h.path} (${h.holds})`);
  const more = held.length > 3 ? ` and ${held.length - 3} more` : '';
  const list = JSON.stringify(held.map((h) => h.path));
  return `held back from the worker, for what they hold: ${shown.join(', ')}${more}; to send them, add "projects": {${JSON.stringify(project)}: {"sendHeldBack": ${list}}} to ${configFile}`;
}

/** The project's `sendHeldBack` list and the key its config entry has (or would have: `~/src/app`). */
export function sendHeldBackOf(config: Config, entry: { key: string } | undefined, shown: string): { allowed: SendHeldBack; project: string } {
  const allowed = entry ? (config.projects?.[entry.key]?.sendHeldBack ?? []) : [];
  return { allowed, project: entry?.key ?? shown };
}
