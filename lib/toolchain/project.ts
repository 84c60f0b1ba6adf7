// Which toolchains a project uses (from its files), which versions its version files want, and how the versions
// here and on the workers compare.
import { join, relative } from 'node:path';
import { foldersUp } from '../project-root.js';
import { namesIn, textOf } from '../read-quietly.js';
import { TOOLCHAINS, type Toolchain, satisfies, significant, versionIn } from './table.js';

export interface UsedToolchain {
  toolchain: Toolchain;
  /** The file that says the project uses it, relative to the project root. */
  because: string;
  /** The version a version file asks for, and that file. */
  wanted?: { version: string; file: string };
}

/** The toolchains the project uses, judged from the working folder up to the project root (nearest file first). */
export function toolchainsOf(root: string, cwd: string = root): UsedToolchain[] {
  const listing = foldersUp(root, cwd).map((dir) => ({ dir, names: namesIn(dir) }));
  const out: UsedToolchain[] = [];
  for (const toolchain of TOOLCHAINS) {
    const hit = listing
      .map(({ dir, names }) => ({ dir, name: names.find((n) => toolchain.files.some((f) => (typeof f === 'string' ? f === n : f.test(n)))) }))
      .find((h) => h.name !== undefined);
    if (!hit?.name) continue;
    const wanted = wantedVersion(toolchain, listing, root);
    out.push({ toolchain, because: relative(root, join(hit.dir, hit.name)), ...(wanted ? { wanted } : {}) });
  }
  return out;
}

/** The nearest version file's wish: `.nvmrc` `20`, `rust-toolchain.toml` `channel = "1.75"`, `.tool-versions` `nodejs 20.1.0`. */
function wantedVersion(t: Toolchain, listing: ReadonlyArray<{ dir: string; names: string[] }>, root: string): UsedToolchain['wanted'] {
  for (const { dir, names } of listing) {
    for (const file of t.versionFiles ?? []) {
      if (!names.includes(file)) continue;
      const text = textOf(join(dir, file));
      const version = file.endsWith('.toml') ? /channel\s*=\s*"([^"]+)"/.exec(text)?.[1] : text.trim().split(/\s+/)[0];
      if (version) return { version, file: relative(root, join(dir, file)) };
    }
    if (t.toolVersionsKey && names.includes('.tool-versions')) {
      const line = textOf(join(dir, '.tool-versions'))
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .find((w) => w[0] === t.toolVersionsKey);
      if (line?.[1]) return { version: line[1], file: relative(root, join(dir, '.tool-versions')) };
    }
  }
  return undefined;
}

export interface ToolchainRow {
  id: string;
  because: string;
  wanted?: { version: string; file: string };
  /** Version here (null: not found here). */
  here: string | null;
  /** Version on each worker by name (null: not found there; absent: the worker was not reached). */
  workers: Record<string, string | null>;
  /** One sentence per difference: a worker without it, a different version, a version file not met. */
  problems: string[];
}

/** Compares the versions here and on each worker (`answers`: what each `version` command printed, or null). */
export function compareToolchains(
  used: readonly UsedToolchain[],
  here: ReadonlyMap<string, string | null>,
  workers: ReadonlyMap<string, ReadonlyMap<string, string | null>>,
): ToolchainRow[] {
  return used.map(({ toolchain: t, because, wanted }) => {
    const mine = versionOf(here.get(t.version));
    const row: ToolchainRow = { id: t.id, because, ...(wanted ? { wanted } : {}), here: mine, workers: {}, problems: [] };
    if (wanted && mine && !satisfies(mine, wanted.version)) row.problems.push(`${wanted.file} wants ${wanted.version}, here it is ${mine}`);
    for (const [name, answers] of workers) {
      if (!answers.has(t.version)) continue;
      const theirs = versionOf(answers.get(t.version));
      row.workers[name] = theirs;
      if (theirs === null) {
        if (mine !== null) row.problems.push(`${name} has no ${t.id} (here: ${mine})`);
      } else if (mine !== null && significant(theirs, t.parts) !== significant(mine, t.parts)) {
        row.problems.push(`${name} has ${t.id} ${theirs}, here ${mine}`);
      } else if (wanted && !satisfies(theirs, wanted.version)) {
        row.problems.push(`${wanted.file} wants ${wanted.version}, ${name} has ${theirs}`);
      }
    }
    return row;
  });
}

const versionOf = (answer: string | null | undefined): string | null => (answer ? (versionIn(answer) ?? null) : null);
