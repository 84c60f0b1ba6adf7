// What a run may never write here, whatever the worker says (it is not trusted: a command there can forge
// its report): checked by the client for every change, after reading and before writing. As strict as git is
// about `.git` (its verify_path: any case, the characters a Mac's file system ignores, Windows' short name), never
// sparehand's own folder, never a link leading out of the project or into what is refused, nothing but a
// relative path inside the project. The coding tools' settings in the project are not refused but kept apart
// (decide.ts: a conflict the user can take).

/** Code points HFS+ ignores in names (git utf8.c is_hfs_dotgit): `.g\u200cit` is `.git` on a Mac. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/** A name as file systems that fold case or drop characters may see it. */
function folded(name: string): string {
  return name
    .replace(HFS_IGNORED, '')
    .replace(/[. ]+$/, (m) => (m.length === name.length ? m : ''))
    .toLowerCase();
}

export const isGitName = (name: string): boolean => {
  const f = folded(name);
  return f === '.git' || f === 'git~1';
};
export const isOwnName = (name: string): boolean => folded(name) === '.sparehand';

/** Why sparehand will not write this relative path from the worker, or undefined when it may. */
export function refusedPath(path: string): string | undefined {
  if (path === '' || path.startsWith('/')) return 'it is not a path inside the project';
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return 'it is not a path inside the project';
  if (parts.some(isGitName)) return 'it is a .git entry, which git here would read (and run what it names)';
  if (parts.some(isOwnName)) return "it is in sparehand's own folder";
  return undefined;
}

/** Why a link at `path` with `target` may not be made here (it leads outside the project, or into what is refused). */
export function refusedLink(path: string, target: string): string | undefined {
  if (target === '') return 'it is a link to nothing';
  if (target.startsWith('/')) return 'it is a link to a place outside the project';
  const parts = path.split('/').slice(0, -1);
  for (const step of target.split('/')) {
    if (step === '' || step === '.') continue;
    if (step === '..') {
      if (parts.length === 0) return 'it is a link to a place outside the project';
      parts.pop();
    } else parts.push(step);
    if (isGitName(step) || isOwnName(step)) return "it is a link into .git or sparehand's own folder";
  }
  return undefined;
}

/** Whether `path` is one of the coding tools' settings in the project (`prefixes`: files, or folders ending in `/`). */
export function isToolSettings(path: string, prefixes: readonly string[]): boolean {
  const p = path.toLowerCase();
  return prefixes.some((x) => {
    const s = x.toLowerCase();
    return s.endsWith('/') ? p === s.slice(0, -1) || p.startsWith(s) : p === s;
  });
}

/** The special bits (setuid, setgid, sticky) a file from the worker never gets here. */
export const SPECIAL_BITS = 0o7000;
