// Dependencies are installed on the worker from the project's lock or requirements file, with the project's own
// tool, in the folder that holds the file; again only when the file (or the command) changed. With no Node lock
// file, from package.json (said: its versions may differ); a Python venv with none: venv-here.ts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { foldersUp } from '../project-root.js';
import { jsonOf, namesIn } from '../read-quietly.js';

export type Ecosystem = 'node' | 'python' | 'ruby' | 'php';

export interface Installer {
  ecosystem: Ecosystem;
  /** The file that decides the install (a name, or a pattern for requirements*.txt). */
  file: string | RegExp;
  command: string;
}

/**
 * Lock file → install command; per ecosystem the first file found wins. Python tools make the project's own
 * `.venv` (uv and pdm do by default; poetry and pipenv are told to), so `.venv/bin/python` and an activated
 * `.venv` work on the worker as here. `requirements*.txt` without a lock: a venv and pip, all files at once.
 */
export const INSTALLERS: readonly Installer[] = [
  { ecosystem: 'node', file: 'package-lock.json', command: 'npm ci --no-audit --no-fund' },
  { ecosystem: 'node', file: 'npm-shrinkwrap.json', command: 'npm ci --no-audit --no-fund' },
  { ecosystem: 'node', file: 'pnpm-lock.yaml', command: 'pnpm install --frozen-lockfile' },
  { ecosystem: 'node', file: 'yarn.lock', command: 'yarn install --frozen-lockfile' },
  { ecosystem: 'node', file: 'bun.lock', command: 'bun install --frozen-lockfile' },
  { ecosystem: 'node', file: 'bun.lockb', command: 'bun install --frozen-lockfile' },
  { ecosystem: 'python', file: 'uv.lock', command: 'uv sync --frozen' },
  { ecosystem: 'python', file: 'poetry.lock', command: 'POETRY_VIRTUALENVS_IN_PROJECT=true poetry install --no-root --no-interaction' },
  { ecosystem: 'python', file: 'pdm.lock', command: 'pdm sync --no-self' },
  { ecosystem: 'python', file: 'Pipfile.lock', command: 'PIPENV_VENV_IN_PROJECT=1 pipenv sync --dev' },
  {
    ecosystem: 'python',
    file: /^requirements[\w.-]*\.txt$/,
    command: 'python3 -m venv .venv && PIP_DISABLE_PIP_VERSION_CHECK=1 .venv/bin/python -m pip install --quiet',
  },
  { ecosystem: 'ruby', file: 'Gemfile.lock', command: 'bundle install' },
  { ecosystem: 'php', file: 'composer.lock', command: 'composer install --no-interaction' },
];

export interface DepsInstall {
  /** The folder holding the file, relative to the project root ('.' at the root), with '/' separators. */
  dir: string;
  /** The file(s) that decided it. */
  files: string[];
  command: string;
  /** Hash of the files and the command: the worker installs again only when it changes. */
  hash: string;
  /** The folder the install fills, when the files do not say (a venv made from what is installed here). */
  fills?: string;
  /** Said with the install on the worker when it is not made from a lock file (why its versions may differ). */
  note?: string;
}

/**
 * Without a lock file, Node packages are installed from package.json, with the tool its `packageManager` names,
 * told to write no lock file (none comes back here): the versions are the newest the ranges allow there.
 */
const MANIFEST_INSTALLS: ReadonlyArray<{ manager: string; command: string }> = [
  { manager: 'pnpm', command: 'pnpm install --no-lockfile' },
  { manager: 'yarn', command: 'yarn install --no-lockfile' },
  { manager: 'bun', command: 'bun install --no-save' },
  { manager: 'npm', command: 'npm install --no-package-lock --no-audit --no-fund' },
];

/**
 * What to install for a command run in `cwd`: for each ecosystem, the file nearest to `cwd` on the way up to
 * the project root (in a monorepo, the package's own lock file, else the root's).
 */
export function depsPlan(root: string, cwd: string = root): DepsInstall[] {
  const found = new Map<Ecosystem, DepsInstall>();
  for (const dir of foldersUp(root, cwd)) {
    let names: string[] | undefined;
    for (const inst of INSTALLERS) {
      if (found.has(inst.ecosystem)) continue;
      names ??= namesIn(dir);
      const files = names.filter((n) => (typeof inst.file === 'string' ? n === inst.file : inst.file.test(n))).sort();
      if (files.length === 0) continue;
      const command = typeof inst.file === 'string' ? inst.command : `${inst.command} ${files.map((f) => `-r ${f}`).join(' ')}`;
      found.set(inst.ecosystem, install(root, dir, files, command));
    }
  }
  if (!found.has('node')) {
    const manifest = nodeManifest(root, cwd);
    if (manifest) found.set('node', manifest);
  }
  return [...found.values()];
}

/** One install in `dir` from `files`, its hash made from their content and the command. */
function install(root: string, dir: string, files: string[], command: string, note?: string): DepsInstall {
  const rel = relative(root, dir);
  const h = createHash('sha256').update(command);
  for (const f of files)
    h.update('\0')
      .update(f)
      .update('\0')
      .update(readFileSync(join(dir, f)));
  return { dir: rel === '' ? '.' : rel.split(sep).join('/'), files, command, hash: h.digest('hex').slice(0, 32), ...(note ? { note } : {}) };
}

/** No Node lock file on the way up: the nearest package.json that names dependencies, installed from itself. */
function nodeManifest(root: string, cwd: string): DepsInstall | undefined {
  for (const dir of foldersUp(root, cwd)) {
    const pkg = jsonOf(join(dir, 'package.json'));
    if (typeof pkg !== 'object' || pkg === null) continue;
    const p = pkg as Record<string, unknown>;
    const named = ['dependencies', 'devDependencies', 'optionalDependencies'].some(
      (k) => typeof p[k] === 'object' && p[k] !== null && Object.keys(p[k] as object).length > 0,
    );
    if (!named) continue;
    const manager = typeof p.packageManager === 'string' ? p.packageManager.split('@')[0] : 'npm';
    const how = MANIFEST_INSTALLS.find((m) => m.manager === manager) ?? (MANIFEST_INSTALLS.at(-1) as { command: string });
    return install(root, dir, ['package.json'], how.command, 'no lock file: from package.json, so versions may differ from those here');
  }
  return undefined;
}

/** The files the installs read, relative to the project root: always sent (sync.ts), whatever .gitignore says. */
export function depsInputs(deps: readonly DepsInstall[]): string[] {
  return deps.flatMap((d) => d.files.map((f) => (d.dir === '.' ? f : `${d.dir}/${f}`)));
}
