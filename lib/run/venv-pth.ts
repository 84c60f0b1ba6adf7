// The bare `.pth` files of a venv here: those no installed package owns (no dist-info's RECORD names them), as
// `python setup.py develop` leaves `easy-install.pth`, `conda develop` its `conda.pth`, or a user their own. Python
// reads them at start-up (site.py: each line a folder put on sys.path, relative lines from site-packages; lines
// starting with `import` run). The worker's venv gets the same files, each folder in the project rewritten to the
// same folder of the worker's copy (a line relative to site-packages, which holds wherever the copy is); a folder
// outside the project, or in the venv itself (which the worker makes anew), cannot be made there and is said.
import { existsSync, lstatSync } from 'node:fs';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import { namesIn, realOrSame, textOf } from '../read-quietly.js';

/** A venv tool's own .pth files, which the worker's `python -m venv` makes (or does without) on its own. */
const OWN_PTH = new Set(['_virtualenv.pth', 'distutils-precedence.pth']);

export interface BarePth {
  /** The file's name in site-packages. */
  file: string;
  /** Its lines for the worker: folders relative to site-packages, `import` lines as they are. */
  lines: string[];
}

/**
 * The bare .pth files of one site-packages folder here (`site`, whose place relative to the project root is
 * `siteRel`), rewritten for the worker's copy; or why one cannot be.
 */
export function barePth(site: string, siteRel: string, root: string, venv: string): { pth: BarePth[] } | { cannot: string } {
  const names = namesIn(site);
  const owned = ownedFiles(site, names);
  const pth: BarePth[] = [];
  for (const file of names.filter((n) => n.endsWith('.pth') && !n.startsWith('.') && !OWN_PTH.has(n) && !owned.has(n)).sort()) {
    // (Only a file is read: a FIFO there would hold up every run.)
    if (!isFile(join(site, file))) continue;
    const lines: string[] = [];
    for (const raw of textOf(join(site, file)).split('\n')) {
      if (raw.startsWith('#') || raw.trim() === '') continue;
      if (raw.startsWith('import ') || raw.startsWith('import\t')) {
        if (raw.includes(root) || raw.includes(realOrSame(root)))
          return { cannot: `its ${file} runs \`${raw.trim()}\`, which names this machine's folder ${root}` };
        lines.push(raw.trimEnd());
        continue;
      }
      const line = raw.trimEnd();
      const target = isAbsolute(line) ? line : join(site, line);
      // As site.py: a folder that is not there is not put on sys.path (here, so not there either).
      if (!existsSync(target)) continue;
      const inProject = within(root, target);
      if (inProject === undefined) return { cannot: `its ${file} adds ${line}, outside the project, which the worker does not have` };
      if (within(venv, target) !== undefined)
        return { cannot: `its ${file} adds ${line}, inside the venv, which the worker makes anew from what is installed in it` };
      lines.push(posix.relative(siteRel, inProject) || '.');
    }
    pth.push({ file, lines });
  }
  return { pth };
}

/** The files in `site` that an installed package's RECORD names (its own .pth files among them). */
function ownedFiles(site: string, names: readonly string[]): Set<string> {
  const owned = new Set<string>();
  for (const info of names.filter((n) => n.endsWith('.dist-info'))) {
    for (const row of textOf(join(site, info, 'RECORD')).split('\n')) {
      // RECORD is CSV: the path is the first field, quoted when it holds a comma.
      const path = row.startsWith('"') ? /^"((?:[^"]|"")*)"/.exec(row)?.[1]?.replace(/""/g, '"') : row.split(',')[0];
      if (path && !path.includes('/')) owned.add(path);
    }
  }
  return owned;
}

/** `path`'s place under `folder` ('/'-separated, '' for the folder itself), by real paths; undefined when outside it. */
function within(folder: string, path: string): string | undefined {
  const rel = relative(realOrSame(folder), realOrSame(path));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
