// Where a heavy command's stderr goes, when it is cut from the line (split.ts cutPipeline): the redirects and
// `|&` that send it where stdout goes can stay here in a form that means the same, with the `2>&1` inside the
// run, so that sparehand's own lines (its summary on stderr) never land in the command's file or pipe.
import type { Redirect } from './lex.js';
import type { NoCut } from './worker-safe.js';

/** A stretch after the sent piece: moved inside it (`into`), or written as `as` (`&> f` → `> f`). */
export type Edit = { start: number; end: number; into?: boolean; as?: string };

/**
 * How the redirects after the command keep stderr where stdout goes, here, with sparehand's lines out of it:
 * `> x.log 2>&1` (the `2>&1`s after every other redirect: moved inside), `> a &> x.log` (a last `&>`, written
 * `> x.log` here and a `2>&1` inside). Undefined when stderr goes anywhere else (then all go inside). An edit
 * starting at -1 starts where the command's words end.
 */
export function stderrKept(src: string, redirects: readonly Redirect[]): Edit[] | undefined {
  const last = redirects[redirects.length - 1];
  if (last?.operator.startsWith('&>') && !redirects.slice(0, -1).some(movesStderr)) {
    const text = src.slice(last.start, last.end);
    return [
      { start: last.start, end: last.end, as: text.replace(/^&>/, '>') },
      { start: last.end, end: last.end, into: true, as: ' 2>&1' },
    ];
  }
  const joined = stderrJoinsStdout(redirects);
  return joined?.map((i) => ({ start: i === 0 ? -1 : (redirects[i - 1] as Redirect).end, end: (redirects[i] as Redirect).end, into: true }));
}

/**
 * The redirects (indices) that only send stderr where stdout goes, when they all come after every other redirect
 * and no other touches stderr (`> x.log 2>&1`, `>> x.log 2>&1`): inside the run they mean the same. Else undefined.
 */
function stderrJoinsStdout(redirects: readonly Redirect[]): number[] | undefined {
  const joins = (r: Redirect) => r.fd === '2' && r.operator === '>&' && r.target.value === '1' && !r.target.quoted;
  const first = redirects.findIndex(joins);
  if (first < 0) return undefined;
  const rest = redirects.slice(first);
  if (!rest.every(joins) || redirects.slice(0, first).some(movesStderr)) return undefined;
  return rest.map((_, i) => first + i);
}

/** A redirect that changes where stderr goes: `2>…`, `2>&1`, `&>…`, `>& file`. */
export const movesStderr = (r: Redirect): boolean =>
  r.fd === '2' || r.operator.startsWith('&>') || (r.operator === '>&' && r.fd === '' && !/^(\d+|-)$/.test(r.target.value));

export const APPENDS: NoCut = {
  rule: 'local: stderr appended to a file',
  why: 'appends its stderr to a file, which would be written on the worker, where an ignored file is not the one here',
};
