// The units a runner that cannot shard itself is split by: pytest's test files, `go test`'s packages. Found by
// walking the project as the runner would (its own skips), never by running anything.
import type { ProjectView } from './view.js';

/** Folders no runner looks in for a project's own tests. */
const NEVER = new Set(['node_modules', '.git', '.venv', 'venv', '.tox', '.nox', '__pycache__', 'build', 'dist', 'target', '.sparehand', 'site-packages']);
/** A bound on the walk: a tree this big is not split by file (the runner's own collection is cheaper than ours). */
const MAX_ENTRIES = 20_000;

const join = (dir: string, name: string): string => (dir === '' || dir === '.' ? name : `${dir.replace(/\/+$/, '')}/${name}`);

/** Every file under `dir` for which `keep(name)` holds, sorted; undefined when the walk passes MAX_ENTRIES. */
function walk(view: ProjectView, dir: string, keep: (name: string) => boolean, skip: (name: string, path: string) => boolean): string[] | undefined {
  const out: string[] = [];
  const stack = [dir];
  let seen = 0;
  while (stack.length > 0) {
    const d = stack.pop() as string;
    for (const e of view.list(d)) {
      if (++seen > MAX_ENTRIES) return undefined;
      const p = join(d, e.name);
      if (e.folder) {
        if (!NEVER.has(e.name) && !e.name.startsWith('.') && !skip(e.name, p)) stack.push(p);
      } else if (keep(e.name)) out.push(p);
    }
  }
  return out.sort();
}

/** pytest's default `python_files`: `test_*.py` and `*_test.py`. */
export const isPytestFile = (name: string): boolean => /^test_.*\.py$/.test(name) || /.+_test\.py$/.test(name);

/** pytest's own settings that change which files it collects, from its config files; `testpaths` where set. */
export function pytestSettings(view: ProjectView): { testpaths?: string[]; changesFiles?: string } {
  for (const file of ['pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg']) {
    const text = view.read(file);
    if (text === undefined) continue;
    // The section that holds pytest's settings in this file (pytest reads the first file that has one).
    const header = file === 'pyproject.toml' ? /^\[tool\.pytest\.ini_options\]\s*$/m : file === 'pytest.ini' ? /^\[pytest\]\s*$/m : /^\[(tool:)?pytest\]\s*$/m;
    const at = text.search(header);
    if (at < 0) continue;
    const body = text.slice(at).split('\n').slice(1);
    const end = body.findIndex((l) => /^\[/.test(l));
    const section = (end < 0 ? body : body.slice(0, end)).join('\n');
    const changes = /^\s*(python_files|collect_ignore|norecursedirs)\s*=/m.exec(section);
    if (changes) return { changesFiles: `${file} sets ${changes[1]}` };
    const tp = /^\s*testpaths\s*=\s*(.*)$/m.exec(section);
    if (!tp) return {};
    const value = (tp[1] ?? '').trim();
    const paths = value.startsWith('[') ? [...value.matchAll(/["']([^"']+)["']/g)].map((m) => m[1] as string) : value.split(/\s+/).filter(Boolean);
    return { testpaths: paths };
  }
  return {};
}

/** pytest's test files under the given paths (a file is taken as it is), or why they cannot be listed. */
export function pytestFiles(view: ProjectView, paths: readonly string[]): { files: string[] } | { why: string } {
  const files: string[] = [];
  for (const p of paths) {
    if (p.includes('::') || p.endsWith('.py')) {
      files.push(p);
      continue;
    }
    const found = walk(view, p, isPytestFile, () => false);
    if (found === undefined) return { why: `${p} holds too many files to list` };
    files.push(...found);
  }
  return { files: [...new Set(files)] };
}

/**
 * The packages `./...` (or `./dir/...`) names for `go test`: each folder below with a `.go` file, as go lists them
 * (no `testdata`, `vendor`, `_x` or `.x` folders; a folder with its own go.mod is another module).
 */
export function goPackages(view: ProjectView, pattern: string): string[] | undefined {
  const base = pattern === './...' ? '.' : pattern.slice(0, -'/...'.length);
  const dirs = new Set<string>();
  const found = walk(
    view,
    base,
    (name) => name.endsWith('.go'),
    (name, path) => name === 'testdata' || name === 'vendor' || name.startsWith('_') || view.read(`${path}/go.mod`) !== undefined,
  );
  if (found === undefined) return undefined;
  for (const f of found) {
    const i = f.lastIndexOf('/');
    dirs.add(i < 0 ? '.' : f.slice(0, i));
  }
  return [...dirs].sort().map((d) => (d === '.' ? '.' : d.startsWith('./') || d.startsWith('../') ? d : `./${d}`));
}
