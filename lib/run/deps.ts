// Dependencies are installed on the worker from the project's lock or requirements file, with the project's own
// tool, in the folder that holds the file; again only when the file (or the command) changed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { foldersUp } from '../project-root.js';
import { namesIn } from '../read-quietly.js';

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
}

/**
 * What to install for a command run in `cwd`: for each ecosystem, the file nearest to `cwd` on the way up to
 * the project root (in a monorepo, the package's own lock file, else the root's).
 */
export function depsPlan(root: string, cwd: string = root): DepsInstall[] {
  const found = new Map<Ecosystem, DepsInstall>();
  for (const dir of foldersUp(root, cwd)) {
    const rel = relative(root, dir);
    let names: string[] | undefined;
    for (const inst of INSTALLERS) {
      if (found.has(inst.ecosystem)) continue;
      names ??= namesIn(dir);
      const files = names.filter((n) => (typeof inst.file === 'string' ? n === inst.file : inst.file.test(n))).sort();
      if (files.length === 0) continue;
      const command = typeof inst.file === 'string' ? inst.command : `${inst.command} ${files.map((f) => `-r ${f}`).join(' ')}`;
      const h = createHash('sha256').update(command);
      for (const f of files) h.update('\0').update(f).update('\0').update(readFileSync(join(dir, f)));
      found.set(inst.ecosystem, { dir: rel === '' ? '.' : rel.split(sep).join('/'), files, command, hash: h.digest('hex').slice(0, 32) });
    }
  }
  return [...found.values()];
}


/** The files the installs read, relative to the project root: always sent (sync.ts), whatever .gitignore says. */
export function depsInputs(deps: readonly DepsInstall[]): string[] {
  return deps.flatMap((d) => d.files.map((f) => (d.dir === '.' ? f : `${d.dir}/${f}`)));
}
