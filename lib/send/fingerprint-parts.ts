// The parts of a send's fingerprint (warm-send.ts): what git ignores and the rules that shape the send, the stat
// of every path rsync would walk, and their hash. fingerprint-update.ts brings a kept one up to date from the
// watcher's journal with these same parts; warm-kept.ts writes and reads them.
import { createHash } from 'node:crypto';
import { type Stats, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { capture } from '../process.js';
import { OWN_FOLDER } from '../state/own-folder.js';
import type { WatchMark } from '../watch/journal.js';
import type { Delta } from './warm-paths.js';
import { gitIgnored } from './rsync-up.js';
import { NO_SECRETS, type SecretPlan, anchored } from './held-back.js';
import { SECRET_PATTERNS, notBroughtBack, skipMatcher, skipRules, underMatcher, upFilterArgs } from '../remote/sync-rules.js';

export interface Fingerprint {
  /** What git ignores, as syncUp gives it to rsync. */
  ignored: string;
  /** The settings that shape the send, and HEAD. */
  rules: string;
  /** The hash of what git ignores and of `rules`. */
  base: string;
  /** The files sent only when they hold no secret this time (sync.ts secretsByContent), as anchored patterns. */
  hidden: string[];
  /** path (a folder's ending in '/') → its stat. */
  paths: Map<string, string>;
  /** Whether a path (a folder's ending in '/') is out of what is sent. */
  out: (key: string) => boolean;
  hash: string;
  /** What shaped `ignored` besides the project's files: HEAD, the hash of git's index, git's own settings (gitContext). */
  git: GitState;
  /** The watcher's point in its journal, taken before this fingerprint was (lib/watch/journal.ts). */
  watch?: WatchMark;
  /** 'watched': brought up to date from what the watcher said changed (fingerprint-update.ts); 'walked': every file looked at. */
  looked: 'watched' | 'walked';
  /** `paths` as warm-kept.ts writes them (when they are the kept ones laid over with `delta`, without building them). */
  written?: () => string;
  /** What changed since the kept fingerprint, when `paths` was never built (fingerprint-update.ts): path → stat now, or undefined for gone. */
  delta?: Delta;
}

/** What the list of ignored paths and the rules came from, besides the files in the project. */
export interface GitState {
  head: string;
  index: string;
  context: string;
}

export const statLine = (st: Stats): string => {
  const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? 'f' : 's';
  return `${type}:${st.mode}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
};

/** What shapes the send besides git's list (sync.ts SyncTarget). */
export interface Scope {
  keep: readonly string[];
  inputs: readonly string[];
  secrets?: SecretPlan;
}

/** The parts of a fingerprint that come from the rules and git's list, not from the files. */
export function madeFrom(root: string, config: Config, { keep, inputs, secrets = NO_SECRETS }: Scope, ignored: string, git: GitState) {
  const hidden = anchored(secrets.held.map((h) => h.path));
  const rules = JSON.stringify([git.head, lstatSync(root).mode, upFilterArgs(config, '', hidden, secrets.sent), keep, inputs, config.sync ?? {}]);
  const out = outOfScope(config, ignored, keep, inputs, secrets.sent);
  return { ignored, rules, base: baseOf(ignored, rules), hidden, out, git };
}

/** git's list of what it ignores and its HEAD, each asked for once (then the same answer). */
export interface GitAsk {
  ignored: () => Promise<string>;
  head: () => Promise<string>;
}

export function gitAsk(root: string, env: NodeJS.ProcessEnv): GitAsk {
  let ignored: Promise<string> | undefined;
  let head: Promise<string> | undefined;
  return { ignored: () => (ignored ??= gitIgnored(root, env, root)), head: () => (head ??= gitHead(root, env)) };
}

export async function gitHead(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  return (await capture('git', ['-C', root, 'rev-parse', '-q', '--verify', 'HEAD'], { env })).stdout.trim();
}

/** The hash of git's index (what is tracked shapes what is ignored): '' when there is none. */
export function indexHash(root: string): string {
  try {
    return createHash('sha1')
      .update(readFileSync(join(root, '.git', 'index')))
      .digest('hex');
  } catch {
    return '';
  }
}

/**
 * git's settings that shape what it ignores: the project's, the user's and the system's config files (their
 * content) and the user's excludes file (its stat). A config that names another excludes file is not
 * followed: the context then differs every time, and every run asks git.
 */
export function gitContext(root: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? '';
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const parts: string[] = [];
  const files = [
    join(root, '.git', 'config'),
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    '/etc/gitconfig',
    env.GIT_CONFIG_GLOBAL ?? '',
    env.GIT_CONFIG_SYSTEM ?? '',
  ];
  for (const f of files) {
    if (!f) continue;
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      /* none */
    }
    if (/excludesfile|\[include|\[includeif/i.test(text)) return `unknown:${process.hrtime.bigint()}`;
    parts.push(createHash('sha1').update(text).digest('hex'));
  }
  try {
    parts.push(statLine(lstatSync(join(xdg, 'git', 'ignore'))));
  } catch {
    parts.push('-');
  }
  return parts.join(' ');
}

/** The folders git ignores as a whole (never sent: the watcher need not watch them). */
export function skipDirs(ignored: string): string[] {
  return ignored
    .split('\0')
    .filter((p) => p.endsWith('/') && !p.startsWith(`${OWN_FOLDER}/`))
    .map((p) => p.slice(0, -1));
}

/** What rsync does not send: what git ignores, the sync rules' exclusions, what the copy keeps, sparehand's own folder. */
function outOfScope(
  config: Config,
  ignoredList: string,
  keep: readonly string[],
  inputs: readonly string[],
  tracked: readonly string[],
): (key: string) => boolean {
  const ignored = new Set(ignoredList.split('\0').filter(Boolean));
  for (const i of inputs) ignored.delete(i);
  for (const k of keep) ignored.add(k);
  const skipped = skipMatcher(skipRules(notBroughtBack(config)));
  const out = (key: string) => ignored.has(key) || ignored.has(key.replace(/\/$/, '')) || skipped(key) || key === `${OWN_FOLDER}/`;
  if (tracked.length === 0 || config.sync?.sendSecrets) return out;
  // The secret list's tracked files are sent (sync-rules.ts trackedSecretRules): they and the folders above them are
  // in; what else is in a folder the list names stays out, as rsync hides it.
  const sent = new Set(tracked);
  const named = underMatcher(SECRET_PATTERNS);
  const folders = new Set(
    tracked.flatMap((p) =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/'))
        .filter((f) => named(f, 'd'))
        .map((f) => `${f}/`),
    ),
  );
  return (key) => {
    if (sent.has(key) || folders.has(key)) return false;
    if (folders.has(key.replace(/\/$/, '').replace(/[^/]*$/, ''))) return true;
    return out(key);
  };
}

/** Past this many paths no fingerprint is taken (its record would cost more than it saves): every run sends. */
const MAX_PATHS = 400_000;

/** Every path rsync would walk, with its stat. */
export function walk(root: string, out: (key: string) => boolean, under = '', paths = new Map<string, string>()): Map<string, string> {
  const dirs = [under];
  while (dirs.length > 0) {
    const d = dirs.pop() as string;
    for (const name of readdirSync(d ? join(root, d) : root)) {
      const p = d ? `${d}/${name}` : name;
      const st = lstatSync(join(root, p));
      const key = st.isDirectory() ? `${p}/` : p;
      if (out(key)) continue;
      paths.set(key, statLine(st));
      if (paths.size > MAX_PATHS) throw new Error('too many paths for a fingerprint');
      if (st.isDirectory()) dirs.push(p);
    }
  }
  return paths;
}

function baseOf(ignored: string, rules: string): string {
  // sparehand's own folder comes and goes in git's list (its staging, its records): rsync never sends it anyway.
  const listed = ignored.split('\0').filter((p) => p !== '' && !p.startsWith(`${OWN_FOLDER}/`));
  return createHash('sha256').update(listed.join('\0')).update('\0').update(rules).digest('hex');
}

export function hashOf(base: string, paths: Map<string, string>): string {
  const h = createHash('sha256').update(base).update('\0');
  for (const p of [...paths.keys()].sort()) h.update(`${p}\0${paths.get(p) as string}\0`);
  return h.digest('hex');
}
