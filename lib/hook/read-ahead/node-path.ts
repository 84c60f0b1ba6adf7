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

/** Already in normal form (no `.` or `..` part, no `//`, no trailing `/`): what most paths the hook makes are. */
const plain = (path: string): boolean => path !== '' && !/(^|\/)\.\.?(\/|$)|\/\/|\/$/.test(path);

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
  if (parts.length > 0 && parts.every(plain) && parts.slice(1).every((p) => !isAbsolute(p))) return parts.join('/');
  const joined = parts.filter((p) => p !== '').join('/');
  return joined === '' ? '.' : normalize(joined);
}

export function resolve(...parts: string[]): string {
  if (parts.length === 1 && isAbsolute(parts[0]!) && plain(parts[0]!)) return parts[0]!;
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
  // As node's posix dirname: up to the slash before the last name (`a//b` → `a/`), the root kept.
  if (path === '') return '.';
  const root = path.startsWith('/');
  let end = -1;
  let named = false;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] === '/') {
      if (named) {
        end = i;
        break;
      }
    } else named = true;
  }
  if (end === -1) return root ? '/' : '.';
  return root && end === 1 ? '//' : path.slice(0, end);
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
