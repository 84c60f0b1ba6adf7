// What is synced, in one place (docs/run.md "What is synced"): as rsync filter rules for the way up, and as
// one regular expression for the worker's tree watch (what never comes back). Pure.
import type { Config } from '../config.js';

/** A glob whose letters match either case: `*.pem` → `*.[pP][eE][mM]` (rsync patterns and our regexes both read it). */
export function anyCase(glob: string): string {
  return glob.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

/**
 * Files and folders that hold secrets: never sent, in any case of their names, unless `sync.sendSecrets` — and
 * deleted from the worker's copy once they stop being sent (rsync hides them without protecting the copy's).
 * Environment files, ssh/cloud/gpg/kube folders, credential and token files of git, npm, PyPI, Docker, Postgres,
 * Vault, Terraform and htpasswd, private keys and keystores by name, cloud service-account key files.
 */
export const SECRET_PATTERNS: readonly string[] = [
  '.env',
  '.env.*',
  '.envrc',
  '.ssh/',
  '.aws/',
  '.gnupg/',
  '.kube/',
  '.azure/',
  '.config/gcloud/',
  '.git-credentials',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.vault-token',
  '.htpasswd',
  '.terraformrc',
  'terraform.rc',
  '*.tfstate',
  '*.tfstate.*',
  '.docker/config.json',
  'id_*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*credentials*.json',
  'serviceAccount*.json',
  'service-account*.json',
].map(anyCase);

/** Settings files that hold a secret only sometimes: not sent when their content has one (sync.ts secretsByContent). */
export const SECRET_BY_CONTENT: ReadonlyArray<{ name: string; secret: RegExp }> = [
  { name: '.yarnrc.yml', secret: /^\s*npm(AuthToken|AuthIdent|Password)\s*:/m },
];

/** Dependency folders: installed on the worker from the lock file, never copied (unless `sync.copyDependencies`). */
export const DEPENDENCY_DIRS: readonly string[] = ['node_modules/', '.venv/', 'bower_components/', '.pnpm-store/', '.yarn/cache/', '.yarn/unplugged/'];

/** Version control and caches: they stay where they are made, in both directions. */
export const CACHE_DIRS: readonly string[] = [
  // `.git` without a slash: a worktree's `.git` file too (it points at a folder the worker does not have).
  '.git',
  '.hg/',
  '.svn/',
  '__pycache__/',
  '.pytest_cache/',
  '.mypy_cache/',
  '.ruff_cache/',
  '.tox/',
  '.gradle/',
  '.turbo/',
  '.parcel-cache/',
  '.next/cache/',
  '.sparehand/',
];

/**
 * Build caches that only make sense on the worker: made there, used there, never brought back (their outputs
 * beside them are). Cargo: incremental state, per-crate objects, build-script outputs, fingerprints — about
 * 100 MB per edit cycle on a small crate, and hard links that would come back as copies. Zig's and Dart's caches
 * likewise. `sync.keepOnWorker` adds patterns.
 */
export const KEEP_ON_WORKER: readonly string[] = [
  'target/*/incremental/',
  'target/*/deps/',
  'target/*/build/',
  'target/*/.fingerprint/',
  'target/*/*/incremental/',
  'target/*/*/deps/',
  'target/*/*/build/',
  'target/*/*/.fingerprint/',
  '.zig-cache/',
  'zig-cache/',
  '.dart_tool/',
];

/** Patterns neither sent nor brought back (and not deleted on the worker by the way up). */
export function excluded(config: Config): string[] {
  const sync = config.sync ?? {};
  return [...(sync.sendSecrets ? [] : SECRET_PATTERNS), ...(sync.copyDependencies ? [] : DEPENDENCY_DIRS), ...CACHE_DIRS, ...(sync.exclude ?? [])];
}

/** Build caches kept on the worker: never brought back, and by the way up neither sent nor deleted there. */
export const keptOnWorker = (config: Config): string[] => [...KEEP_ON_WORKER, ...(config.sync?.keepOnWorker ?? [])];

/**
 * The way up as rsync filter rules: secrets hidden (not sent, and deleted from the copy: a hide rule does not
 * protect the receiver's files), then the excluded patterns and the caches kept on the worker (neither sent nor
 * deleted there, so what the worker made survives), then `ignoredFile`: the paths git ignores here
 * (ignoredPatterns), likewise excluded. `hidden`: more paths to hide (anchored patterns: sync.ts secretsByContent).
 */
export function upFilterArgs(config: Config, ignoredFile: string | undefined, hidden: readonly string[] = [], tracked: readonly string[] = []): string[] {
  const sync = config.sync ?? {};
  const secrets = sync.sendSecrets ? [] : [...hidden, ...SECRET_PATTERNS];
  const kept = [...(sync.copyDependencies ? [] : DEPENDENCY_DIRS), ...CACHE_DIRS, ...(sync.exclude ?? []), ...keptOnWorker(config)];
  return [
    ...(sync.sendSecrets ? [] : trackedSecretRules(tracked)),
    ...secrets.map((p) => `--filter=H ${p}`),
    ...kept.map((p) => `--filter=- ${p}`),
    ...(ignoredFile === undefined ? [] : ['--from0', `--exclude-from=${ignoredFile}`]),
  ];
}

/**
 * The secret list's tracked files, sent (what git tracks is the project: held-back.ts): each included by its anchored
 * path before the hide rules, with the folders above it the list names (`.kube/`), whose other entries stay hidden.
 */
export function trackedSecretRules(tracked: readonly string[]): string[] {
  if (tracked.length === 0) return [];
  const named = underMatcher(SECRET_PATTERNS);
  const folders = new Set<string>();
  for (const p of tracked) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const f = parts.slice(0, i).join('/');
      if (named(f, 'd')) folders.add(f);
    }
  }
  const esc = (p: string) => (/[*?[]/.test(p) ? p.replace(/[\\*?[]/g, '\\$&') : p);
  return [
    ...tracked.map((p) => `--filter=+ /${esc(p)}`),
    ...[...folders].sort().map((f) => `--filter=+ /${esc(f)}/`),
    ...[...folders].sort().map((f) => `--filter=H /${esc(f)}/*`),
  ];
}

/**
 * Paths git lists as ignored (`git ls-files -z --others --ignored --exclude-standard --directory`: relative,
 * folders ending in `/`) as rsync patterns anchored at the project root, NUL-terminated for `--from0`. A path
 * with a wildcard character has backslashes and the wildcards escaped (rsync reads escapes only in patterns with one).
 * `inputs` (relative paths: the lock files the worker installs from) are left out: they are sent whatever
 * .gitignore says.
 */
export function ignoredPatterns(gitOutput: string, inputs: readonly string[] = []): string {
  const sent = new Set(inputs);
  return gitOutput
    .split('\0')
    .filter((p) => p !== '' && !sent.has(p))
    .map((p) => `/${/[*?[]/.test(p) ? p.replace(/[\\*?[]/g, '\\$&') : p}\0`)
    .join('');
}

/** What the worker's tree watch skips: the excluded patterns and the build caches kept on the worker. */
export function notBroughtBack(config: Config): string[] {
  return [...excluded(config), ...keptOnWorker(config)];
}

/**
 * rsync patterns as regular expressions (the same in JavaScript and Perl) over a path relative to the project
 * root, where a folder's path ends in `/`. As in rsync: a pattern starting with `/` is anchored at the root, any
 * other matches the end of the path at a name boundary (`.yarn/cache/` also matches `pkg/.yarn/cache/`); a
 * trailing `/` matches folders only; `*` and `?` stop at `/`, `**` does not; `[...]` is a class (`[!…]`
 * negated).
 *
 * For speed on large trees they come in three parts: `names` is tested against an entry's own name (most
 * patterns are one name: node_modules/, *.pem); `lasts` against its name too, and only when it matches is
 * `paths` (the patterns of several parts, such as target/STAR/deps/) tested against the whole path. One regular
 * expression of fifty alternatives over whole paths cost 37 µs a path in Perl; these cost about 1 µs.
 */
export interface SkipRules {
  names: string;
  lasts: string;
  paths: string;
}

export function skipRules(patterns: readonly string[]): SkipRules {
  const single = (p: string) => !p.startsWith('/') && !p.slice(0, -1).includes('/') && !p.includes('**');
  const ones = patterns.filter(single);
  const many = patterns.filter((p) => !single(p));
  const lastPart = (p: string) => (p.endsWith('/') ? `${p.slice(0, -1).split('/').at(-1)}/` : (p.split('/').at(-1) as string));
  return {
    names: ones.length ? `^(?:${ones.map((p) => globRegex(p, false)).join('|')})$` : '',
    lasts: many.length ? `^(?:${many.map((p) => (lastPart(p).includes('**') ? '.*' : globRegex(lastPart(p), false))).join('|')})$` : '',
    paths: many.length ? `(?:${many.map((p) => globRegex(p, true)).join('|')})$` : '',
  };
}

/**
 * The folder names among `patterns` that need no path to match (`node_modules/`, `.git`, `.[sS][sS][hH]/`): `find`
 * prunes them on the worker, so its walk never enters them (the rest is filtered after, by skipRules).
 */
export function pruneNames(patterns: readonly string[]): string[] {
  return patterns
    .filter((p) => !p.startsWith('/') && !p.slice(0, -1).includes('/') && !p.includes('**') && (p.endsWith('/') || p === '.git'))
    .map((p) => p.replace(/\/$/, ''));
}

/** The rules as one argument for the tree watch: the three parts on three lines. */
export const skipArgument = (rules: SkipRules): string => `${rules.names}\n${rules.lasts}\n${rules.paths}`;

/**
 * A test for a whole path (`type` 'd' for a folder): whether it or a folder above it matches `patterns`, as the
 * tree watch's walk, which never enters a skipped folder, judges it.
 */
export function underMatcher(patterns: readonly string[]): (path: string, type?: string) => boolean {
  const skipped = skipMatcher(skipRules(patterns));
  return (path, type) => {
    const parts = path.split('/');
    return parts.some((_, i) => skipped(`${parts.slice(0, i + 1).join('/')}${i < parts.length - 1 || type === 'd' ? '/' : ''}`));
  };
}

/** A test for `path` (a folder's ending in `/`): what the tree watch does with `rules`, in JavaScript. */
export function skipMatcher(rules: SkipRules): (path: string) => boolean {
  const names = rules.names ? new RegExp(rules.names) : undefined;
  const lasts = rules.lasts ? new RegExp(rules.lasts) : undefined;
  const paths = new RegExp(rules.paths || '$^');
  return (path) => {
    const name = path.endsWith('/') ? `${path.slice(0, -1).split('/').at(-1)}/` : (path.split('/').at(-1) as string);
    return Boolean(names?.test(name) || (lasts?.test(name) && paths.test(path)));
  };
}

/** One pattern as a regular expression body; `whole`: over the whole path (anchored at the root or a name boundary). */
function globRegex(pattern: string, whole: boolean): string {
  const dirOnly = pattern.endsWith('/');
  const anchored = pattern.startsWith('/');
  const body = pattern.slice(anchored ? 1 : 0, dirOnly ? -1 : undefined);
  let re = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    const end = c === '[' ? body.indexOf(']', i + 2) : -1;
    if (c === '*' && body[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (end > 0) {
      const inside = body.slice(i + 1, end);
      re += `[${inside.startsWith('!') ? `^${inside.slice(1)}` : inside}]`;
      i = end;
    } else if (c < ' ' || c === '\x7f') re += `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else re += /[!-/:-@[-`{-~]/.test(c) && c !== '/' ? `\\${c}` : c;
  }
  const tail = dirOnly ? '/' : '/?';
  return whole ? `(?:${anchored ? '^' : '(?:^|/)'}${re}${tail})` : `${re}${tail}`;
}
