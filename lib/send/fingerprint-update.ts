// The kept fingerprint brought up to date from what the watcher says changed since (lib/watch/journal.ts), instead
// of a look at every file (warm-send.ts fingerprint). The result must be what a whole walk would give now: each path
// the journal names is looked at again (a folder made or moved in: everything in it), with the folders holding what
// was made or deleted; git is asked again only when something that shapes its list changed (a path made, moved or
// deleted, a .gitignore, what is under .git, git's own settings). Undefined when the answer would be a guess:
// the list or the rules changed (the caller walks), or the kept fingerprint lacks what this needs.
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Config } from '../config.js';
import { OWN_FOLDER } from '../state/own-folder.js';
import type { Warm } from './warm-kept.js';
import { WarmPaths } from './warm-paths.js';
import { type Changes, skipHash } from '../watch/journal.js';
import { type Fingerprint, type GitAsk, type Scope, gitAsk, gitContext, hashOf, indexHash, madeFrom, skipDirs, statLine, walk } from './fingerprint-parts.js';

const inGit = (p: string) => p === '.git' || p.startsWith('.git/');
const ours = (p: string) => p === OWN_FOLDER || p.startsWith(`${OWN_FOLDER}/`);
const parentOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

export async function updatedFingerprint(
  root: string,
  env: NodeJS.ProcessEnv,
  config: Config,
  scope: Scope,
  kept: Warm,
  since: Changes,
  /** git, asked at most once (fingerprint-parts.ts gitAsk): the caller's walk takes the same answer if this one gives none. */
  ask: GitAsk = gitAsk(root, env),
): Promise<Fingerprint | undefined> {
  if (kept.ignored === undefined || kept.git === undefined) return undefined;
  const all = [...since.changed, ...since.moved];
  const git = all.filter(inGit);
  const moved = [...since.moved].filter((p) => !inGit(p) && !ours(p));
  const touched = new Set([...since.changed].filter((p) => !inGit(p) && !ours(p)));
  for (const p of moved) {
    touched.add(p);
    touched.add(parentOf(p));
  }
  const context = gitContext(root, env);
  const index = git.length > 0 ? indexHash(root) : kept.git.index;
  const relist =
    moved.length > 0 ||
    [...touched].some((p) => basename(p) === '.gitignore') ||
    git.some((p) => p === '.git' || p.startsWith('.git/info') || p === '.git/config') ||
    context !== kept.git.context ||
    index !== kept.git.index;
  const [ignored, head] = await Promise.all([relist ? ask.ignored() : kept.ignored, git.length > 0 ? ask.head() : kept.git.head]);
  // A folder no longer (or newly) ignored as a whole is watched as it was not: the caller walks and starts anew.
  if (skipHash(skipDirs(ignored)) !== since.skip) return undefined;
  const made = madeFrom(root, config, scope, ignored, { head, index, context });
  if (made.base !== kept.base) return undefined;
  const paths = new WarmPaths(kept.text, kept.paths);
  const set = (key: string, line: string) => {
    if (paths.get(key) !== line) paths.set(key, line);
  };
  const gone: string[] = [];
  // Parents first, so that a folder made (and walked) is there before what is in it.
  for (const p of [...touched].sort()) {
    if (p === '') continue;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(join(root, p));
    } catch {
      gone.push(p);
      continue;
    }
    const isDir = st.isDirectory();
    const key = isDir ? `${p}/` : p;
    // Under a folder that is not sent, or not sent itself: as the walk, nothing.
    if (made.out(key) || !within(paths, parentOf(p))) {
      if (paths.has(key)) gone.push(p);
      continue;
    }
    // A file where a folder was (or the other way): the old one and all under it go.
    if (paths.has(isDir ? p : `${p}/`)) removeUnder(paths, p);
    set(key, statLine(st));
    if (isDir && since.moved.has(p)) {
      const found = walk(root, made.out, p);
      for (const [k, line] of found) set(k, line);
      // What the folder held before and holds no more.
      for (const k of paths.under(key)) if (!found.has(k)) paths.delete(k);
    }
  }
  for (const p of gone) removeUnder(paths, p);
  const common = { ...made, looked: 'watched' as const, watch: since.mark };
  // What differs from the kept one in the end (a path changed and put back, or deleted and made again, does not):
  // none, and the hash is the kept one's, however the paths were looked at.
  const changed = [...paths.delta].filter(([k, v]) => paths.kept(k) !== v);
  if (changed.length === 0) {
    return {
      ...common,
      get paths() {
        return paths.map();
      },
      hash: kept.hash,
      written: () => paths.written(),
    };
  }
  if (paths.built) return { ...common, paths: paths.map(), hash: hashOf(made.base, paths.map()) };
  // The hash of the kept one and what changed: the same project gives the same one on this path, if not the walk's.
  const hash = createHash('sha256')
    .update(`${kept.hash}\0`)
    .update(
      changed
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k}\0${v ?? '-'}\0`)
        .join(''),
    )
    .digest('hex');
  return {
    ...common,
    get paths() {
      return paths.map();
    },
    hash,
    delta: new Map(changed),
    written: () => paths.written(),
  };
}

/** Whether folder `dir` (relative, '' the project) is in the fingerprint: what is in it would be walked. */
const within = (paths: WarmPaths, dir: string) => dir === '' || paths.has(`${dir}/`);

/** Removes `p` and all under it. */
function removeUnder(paths: WarmPaths, p: string): void {
  paths.delete(p);
  if (paths.delete(`${p}/`)) for (const k of paths.under(`${p}/`)) paths.delete(k);
}
