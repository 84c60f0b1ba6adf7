// `sparehand doctor` in a project: what would make a run there differ from here, before one fails — a Node
// project with no lock file, a venv the worker makes from what is installed here or cannot make at all, an
// install a worker is remembered to have failed.
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { gitRoot } from '../project-root.js';
import { depsPlan } from '../run/deps.js';
import { failedInstall, failedInstallLine } from '../run/failed-installs.js';
import { clientId, projectKey } from '../run/project.js';
import { projectDeps } from '../run/venv-here.js';
import type { DoctorCheck } from './doctor-check.js';

/** The checks for the project `ctx.cwd` is in (none outside a git repository, or when dependencies are copied). */
export function dependencyChecks(ctx: Context, config: Config): DoctorCheck[] {
  const root = gitRoot(ctx.cwd);
  if (root === undefined || config.sync?.copyDependencies) return [];
  const { deps, venv } = projectDeps(root, ctx.cwd, ctx.env.VIRTUAL_ENV, depsPlan(root, ctx.cwd));
  const checks: DoctorCheck[] = [];
  const where = (dir: string) => (dir === '.' ? 'the project root' : dir);
  for (const d of deps) {
    if (d.files.includes('package.json')) {
      checks.push({
        name: 'dependencies',
        ok: true,
        detail: `no lock file in ${where(d.dir)}: the worker installs from package.json (${d.command}), so its versions may differ from those here; commit a lock file to have the same`,
      });
    }
  }
  if (venv?.install) {
    const python = /command -v (python\d+\.\d+)/.exec(venv.install.command)?.[1] ?? 'python3';
    checks.push({
      name: 'dependencies',
      ok: true,
      detail: `${venv.name} in ${where(venv.dir)} has no requirements or lock file: the worker makes it from what is installed in it here (${venv.install.note?.replace(/^.*made from /, '')}; it needs ${python} and the same wheels)`,
    });
  }
  if (venv?.cannot) {
    checks.push({
      name: 'dependencies',
      ok: false,
      detail: `${venv.name} in ${where(venv.dir)} cannot be made on a worker: ${venv.cannot}; a run that uses it runs here with --or-local (add a requirements or lock file to run it there)`,
    });
  }
  const key = projectKey(root, clientId(ctx, root));
  for (const w of config.workers ?? []) {
    const f = failedInstall(ctx, w, key, deps);
    if (f)
      checks.push({
        name: 'dependencies',
        ok: false,
        detail: `${failedInstallLine(w, f)}; install what it lacks there, then \`sparehand worker reset ${w.name}\` to try again`,
      });
  }
  return checks;
}
