// The toolchains a project may use: how to tell it uses one (its files), how to ask a version, how much of the
// version must match here and on a worker, and which programs belong to it. One table, read by `doctor`,
// `worker check` and `run`.

export interface Toolchain {
  id: string;
  /** The program whose version is asked, with its arguments (run through the worker's login shell there). */
  version: string;
  /** How many leading parts of the version must match: node 20 vs 22 differ; python 3.11 vs 3.12 differ. */
  parts: number;
  /** Files at the project root or the working folder (or on the way between) that mean the project uses it. */
  files: readonly (string | RegExp)[];
  /** Files that name the wanted version (their first word), and the key in `.tool-versions`. */
  versionFiles?: readonly string[];
  toolVersionsKey?: string;
  /** Programs that run on this toolchain: a run of one of them says so once when the worker's version differs. */
  programs: readonly string[];
}

export const TOOLCHAINS: readonly Toolchain[] = [
  {
    id: 'node',
    version: 'node --version',
    parts: 1,
    files: ['package.json'],
    versionFiles: ['.nvmrc', '.node-version'],
    toolVersionsKey: 'nodejs',
    programs: ['node', 'npm', 'npx', 'pnpm', 'yarn', 'jest', 'vitest', 'tsc', 'eslint', 'playwright', 'nx', 'turbo', 'webpack', 'vite'],
  },
  { id: 'npm', version: 'npm --version', parts: 1, files: ['package-lock.json', 'npm-shrinkwrap.json'], programs: [] },
  { id: 'pnpm', version: 'pnpm --version', parts: 1, files: ['pnpm-lock.yaml'], programs: [] },
  { id: 'yarn', version: 'yarn --version', parts: 1, files: ['yarn.lock'], programs: [] },
  { id: 'bun', version: 'bun --version', parts: 1, files: ['bun.lock', 'bun.lockb'], programs: ['bun', 'bunx'] },
  {
    id: 'python',
    version: 'python3 --version',
    parts: 2,
    files: ['pyproject.toml', 'setup.py', /^requirements[\w.-]*\.txt$/, 'uv.lock', 'poetry.lock', 'Pipfile', 'tox.ini'],
    versionFiles: ['.python-version'],
    toolVersionsKey: 'python',
    programs: ['python', 'python3', 'pytest', 'tox', 'nox', 'mypy', 'pyright', 'ruff', 'pip'],
  },
  { id: 'uv', version: 'uv --version', parts: 2, files: ['uv.lock'], programs: ['uv', 'uvx'] },
  { id: 'poetry', version: 'poetry --version', parts: 1, files: ['poetry.lock'], programs: ['poetry'] },
  { id: 'pdm', version: 'pdm --version', parts: 1, files: ['pdm.lock'], programs: ['pdm'] },
  { id: 'pipenv', version: 'pipenv --version', parts: 1, files: ['Pipfile.lock'], programs: ['pipenv'] },
  {
    id: 'rust',
    version: 'rustc --version',
    parts: 2,
    files: ['Cargo.toml'],
    versionFiles: ['rust-toolchain', 'rust-toolchain.toml'],
    toolVersionsKey: 'rust',
    programs: ['cargo', 'rustc'],
  },
  { id: 'go', version: 'go version', parts: 2, files: ['go.mod'], toolVersionsKey: 'golang', programs: ['go'] },
  {
    id: 'java',
    version: 'java -version',
    parts: 1,
    files: ['pom.xml', 'build.gradle', 'build.gradle.kts'],
    toolVersionsKey: 'java',
    programs: ['java', 'mvn', 'gradle', './gradlew', './mvnw'],
  },
  { id: 'maven', version: 'mvn --version', parts: 1, files: ['pom.xml'], programs: [] },
  { id: 'dotnet', version: 'dotnet --version', parts: 1, files: [/\.(csproj|fsproj|sln)$/, 'global.json'], toolVersionsKey: 'dotnet', programs: ['dotnet'] },
  {
    id: 'ruby',
    version: 'ruby --version',
    parts: 2,
    files: ['Gemfile'],
    versionFiles: ['.ruby-version'],
    toolVersionsKey: 'ruby',
    programs: ['ruby', 'bundle', 'rake', 'rspec'],
  },
  { id: 'php', version: 'php --version', parts: 2, files: ['composer.json'], toolVersionsKey: 'php', programs: ['php', 'composer', 'phpunit'] },
  { id: 'swift', version: 'swift --version', parts: 2, files: ['Package.swift'], programs: ['swift'] },
  { id: 'dart', version: 'dart --version', parts: 2, files: ['pubspec.yaml'], toolVersionsKey: 'dart', programs: ['dart', 'flutter'] },
];

/** The first version number in a program's answer (`v20.11.1`, `Python 3.11.7`, `go1.22.1`, `openjdk version "17.0.15"`). */
export function versionIn(text: string): string | undefined {
  return /(?:^|[^\d.])(\d+(?:\.\d+)+)/.exec(text)?.[1] ?? /(?:^|\D)(\d+)(?:\D|$)/.exec(text)?.[1];
}

/** The part of a version that must match (`20.11.1` with parts 1 → `20`; `3.11.7` with parts 2 → `3.11`). */
export function significant(version: string, parts: number): string {
  return version.split('.').slice(0, parts).join('.');
}

/** Whether a version satisfies a wanted one from a version file (`20`, `v20.1`, `3.11`, `1.75.0`); words (`lts/*`, `stable`) always do. */
export function satisfies(version: string, wanted: string): boolean {
  const w = wanted.replace(/^v/, '');
  if (!/^\d+(\.\d+)*$/.test(w)) return true;
  const have = version.split('.');
  return w.split('.').every((part, i) => have[i] === part);
}
