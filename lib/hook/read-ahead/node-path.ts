// node:path (POSIX) for a bundle that runs where there is no node (../read-ahead.ts): the same answers as node's
// path.posix for what sparehand's hook calls (test/hook/read-ahead.test.ts holds them to node's over random paths).
import { world } from './world.js';

export const sep = '/';
export const delimiter = ':';

/** `.` and `..` folded away, as node's normalizeString does (`allowAboveRoot` for a relative path). */
function fold(path: string, allowAboveRoot: boolean): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (allowAboveRoot) out.push('..');
      continue;
    }
    out.push(part);
  }
  return out.join('/');
}

export const isAbsolute = (path: string): boolean => path.startsWith('/');

export function normalize(path: string): string {
  if (path === '') return '.';
  const absolute = isAbsolute(path);
  const trailing = path.endsWith('/');
  let folded = fold(path, !absolute);
  if (folded === '' && !absolute) folded = '.';
  if (folded !== '' && trailing) folded += '/';
  return absolute ? `/${folded}` : folded;
}

export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p !== '').join('/');
  return joined === '' ? '.' : normalize(joined);
}

export function resolve(...parts: string[]): string {
  let resolved = '';
  let absolute = false;
  for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
    const part = i >= 0 ? (parts[i] as string) : world.cwd;
    if (part === '') continue;
    resolved = `${part}/${resolved}`;
    absolute = isAbsolute(part);
  }
  const folded = fold(resolved, !absolute);
  return absolute ? `/${folded}` : folded || '.';
}

export function dirname(path: string): string {
  if (path === '') return '.';
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  const cut = path.lastIndexOf('/', end - 1);
  if (cut < 0) return '.';
  if (cut === 0) return '/';
  let stop = cut;
  while (stop > 1 && path[stop - 1] === '/') stop--;
  return path.slice(0, stop);
}

export function basename(path: string, suffix?: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  const base = path.slice(path.lastIndexOf('/', end - 1) + 1, end);
  return suffix !== undefined && suffix !== base && base.endsWith(suffix) ? base.slice(0, base.length - suffix.length) : base;
}

export function extname(path: string): string {
  const base = basename(path);
  const dot = base.lastIndexOf('.');
  return dot <= 0 || (dot === 1 && base === '..') ? '' : base.slice(dot);
}

export function relative(from: string, to: string): string {
  const a = resolve(from);
  const b = resolve(to);
  if (a === b) return '';
  const as = a === '/' ? [] : a.slice(1).split('/');
  const bs = b === '/' ? [] : b.slice(1).split('/');
  let same = 0;
  while (same < as.length && same < bs.length && as[same] === bs[same]) same++;
  return [...as.slice(same).map(() => '..'), ...bs.slice(same)].join('/');
}

export const posix = { sep, delimiter, isAbsolute, normalize, join, resolve, dirname, basename, extname, relative };
export default posix;
