// A Python virtual environment here with no lock or requirements file beside it (`python -m venv .venv && pip
// install -e . pytest`): what is installed in it is read from its dist-info folders (what `pip freeze` reads), so
// the worker makes the same one: the same Python minor version, the same packages at the same versions (no
// dependency resolution: `--no-deps`), and editable installs of the project's own folders editable there too.
// What cannot be made there from names and versions (a package installed from a path or URL outside the
// project, an editable install of a folder outside it) is said, and the run does not pretend. Bare `.pth` files (no
// package owns them: `setup.py develop`) are made there too, their folders in the project rewritten (venv-pth.ts).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { foldersUp } from '../project-root.js';
import { jsonOf, namesIn, textOf } from '../read-quietly.js';
import type { DepsInstall } from './deps.js';
import { type BarePth, barePth } from './venv-pth.js';

/** Installed with every venv, left out as `pip freeze` leaves them out. */
const OWN = new Set(['pip', 'setuptools', 'wheel', 'distribute']);

export interface VenvHere {
  /** The folder holding the venv, relative to the project root ('.' at the root), with '/' separators. */
  dir: string;
  /** The venv's folder name in it (`.venv`). */
  name: string;
  /** The install that makes it on the worker, or why none can. */
  install?: DepsInstall;
  cannot?: string;
}

/**
 * The project's venv for a run in `cwd`: the active one (VIRTUAL_ENV inside the project), else the nearest `.venv/`
 * on the way up to the root. Undefined when there is none.
 */
export function venvHere(root: string, cwd: string, active: string | undefined): VenvHere | undefined {
  const inside = active ? relative(root, resolve(cwd, active)) : '';
  const path =
    inside && !inside.startsWith('..') && !isAbsolute(inside)
      ? resolve(root, inside)
      : foldersUp(root, cwd)
          .map((d) => join(d, '.venv'))
          .find((v) => existsSync(join(v, 'pyvenv.cfg')));
  if (!path || !existsSync(join(path, 'pyvenv.cfg'))) return undefined;
  const home = resolve(path, '..');
  const dirRel = relative(root, home);
  const dir = dirRel === '' ? '.' : dirRel.split(sep).join('/');
  const name = relative(home, path).split(sep).join('/');
  const cfg = textOf(join(path, 'pyvenv.cfg'));
  const version = /^\s*version(?:_info)?\s*=\s*(\d+)\.(\d+)/m.exec(cfg);
  // (`python -m venv --system-site-packages`: it sees its Python's own packages, and the worker's sees its own.)
  const system = /^\s*include-system-site-packages\s*=\s*true\s*$/im.test(cfg) ? ' --system-site-packages' : '';
  if (!version) return { dir, name, cannot: `${name}/pyvenv.cfg names no Python version` };
  const python = `python${version[1]}.${version[2]}`;
  const listed = installed(path, root, home, dir === '.' ? name : `${dir}/${name}`);
  if ('cannot' in listed) return { dir, name, cannot: listed.cannot };
  const pip = `PIP_DISABLE_PIP_VERSION_CHECK=1 ${quote([`${name}/bin/python`])} -m pip install --quiet --no-deps`;
  const command = [
    `command -v ${python} >/dev/null || { echo "error: the worker has no ${python} (the ${name} here is Python ${version[1]}.${version[2]})" >&2; exit 1; }`,
    `${python} -m venv --clear${system} ${quote([name])}`,
    ...(listed.pinned.length ? [`${pip} ${quote(listed.pinned)}`] : []),
    ...(listed.editable.length ? [`${pip} ${listed.editable.map((e) => `-e ${quote([e])}`).join(' ')}`] : []),
    ...listed.pth.map((p) => `printf '%s\\n' ${quote(p.lines)} > ${quote([`${name}/${p.site}/${p.file}`])}`),
  ].join(' && ');
  const pthNote = listed.pth.length ? ` and its ${listed.pth.map((p) => p.file).join(', ')}` : '';
  const hash = createHash('sha256').update(command).digest('hex').slice(0, 32);
  return {
    dir,
    name,
    install: {
      dir,
      files: [],
      command,
      hash,
      fills: name,
      note: `no requirements file: ${name} made from the ${listed.pinned.length + listed.editable.length} packages installed in it here${pthNote}`,
    },
  };
}

interface Installed {
  pinned: string[];
  editable: string[];
  /** Bare .pth files, with their folder in the venv (`lib/python3.11/site-packages`). */
  pth: Array<BarePth & { site: string }>;
}

/**
 * What is installed in `venv` (`venvRel` relative to the root): `name==version` pins, editable folders (relative
 * to `home`) and bare .pth files; or what cannot be made there.
 */
function installed(venv: string, root: string, home: string, venvRel: string): Installed | { cannot: string } {
  const pinned: string[] = [];
  const editable: string[] = [];
  const pth: Installed['pth'] = [];
  const lib = join(venv, 'lib');
  for (const py of namesIn(lib)
    .filter((n) => /^python\d/.test(n))
    .sort()) {
    const site = join(lib, py, 'site-packages');
    const bare = barePth(site, `${venvRel}/lib/${py}/site-packages`, root, venv);
    if ('cannot' in bare) return bare;
    pth.push(...bare.pth.filter((p) => p.lines.length > 0).map((p) => ({ ...p, site: `lib/${py}/site-packages` })));
    for (const info of namesIn(site)
      .filter((n) => n.endsWith('.dist-info'))
      .sort()) {
      const meta = textOf(join(site, info, 'METADATA'));
      const name = /^Name:\s*(\S+)/m.exec(meta)?.[1];
      const version = /^Version:\s*(\S+)/m.exec(meta)?.[1];
      if (!name || !version || OWN.has(name.toLowerCase())) continue;
      if (!existsSync(join(site, info, 'direct_url.json'))) {
        pinned.push(`${name}==${version}`);
        continue;
      }
      // Installed from a URL or a path (PEP 610); a record that cannot be read says nothing of where.
      const record = jsonOf(join(site, info, 'direct_url.json'));
      const direct = (typeof record === 'object' && record !== null ? record : {}) as { url?: unknown; dir_info?: { editable?: unknown } };
      const url = typeof direct.url === 'string' ? direct.url : '';
      const local = url.startsWith('file:') ? localPath(url) : undefined;
      const inProject = local !== undefined && !relative(root, local).startsWith('..') && !isAbsolute(relative(root, local));
      if (!inProject) return { cannot: `${name} ${version} was installed from ${url || 'somewhere pip did not record'}, which the worker does not have` };
      const rel = relative(home, local).split(sep).join('/') || '.';
      if (typeof direct.dir_info === 'object' && direct.dir_info?.editable === true) editable.push(rel === '.' ? '.' : `./${rel}`);
      else pinned.push(rel.startsWith('.') ? rel : `./${rel}`);
    }
  }
  return { pinned, editable, pth };
}

/** The path a `file:` URL names on this machine; undefined for one that names another host (`file://host/…`) or none. */
function localPath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

/**
 * What the worker installs for a run in `cwd` (deps.ts depsPlan), and when no lock or requirements file speaks for
 * Python, the project's venv made from what is installed in it here (`venv`: also when it cannot be made).
 */
export function projectDeps(root: string, cwd: string, active: string | undefined, plan: DepsInstall[]): { deps: DepsInstall[]; venv?: VenvHere } {
  if (plan.some((d) => PYTHON_FILES.test(d.files.join('\n')))) return { deps: plan };
  const venv = venvHere(root, cwd, active);
  return venv ? { deps: venv.install ? [...plan, venv.install] : plan, venv } : { deps: plan };
}

const PYTHON_FILES = /^(uv\.lock|poetry\.lock|pdm\.lock|Pipfile\.lock|requirements.*\.txt)$/m;
