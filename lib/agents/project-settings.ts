// The coding tools' own files inside a project (settings, hooks, instructions): a run never changes them
// (lib/sync/decide.ts makes a change there a conflict the user can take). Read from the registry: the project
// files each tool's install writes, plus what each tool lists itself (`projectSettings`).
import { allAgents } from './index.js';

let cached: string[] | undefined;

/** Paths relative to a project root: a file, or a folder ending in `/`. */
export function projectSettingsPaths(): readonly string[] {
  if (cached) return cached;
  const base = { home: '/nonexistent-home', env: {}, project: '/nonexistent-project' };
  const found = new Set<string>();
  for (const a of allAgents()) {
    const files = [...a.install.targets.filter((t) => t.scope === 'project'), ...(a.install.notes ?? []).filter((n) => n.scope === 'project')];
    for (const t of files) {
      const rel = t.path(base).slice(base.project.length + 1);
      const [first] = rel.split('/');
      if (!first) continue;
      found.add(rel.includes('/') ? `${first}/` : first);
    }
    for (const p of a.projectSettings ?? []) found.add(p);
  }
  cached = [...found].sort();
  return cached;
}
