// The heavy-command classifier the hook calls on every shell command: decide, explain, rewrite. A command it cannot
// follow is a decision (left alone); only a bug throws.
import { SparehandError } from '../errors.js';
import { analyze, isParseError } from './analyze.js';
import { alreadyWrapped, turnedOff } from './guard.js';
import type { Facts } from './built-outputs.js';
import type { Classification, RuleChanges } from './types.js';

export type { Classification, RuleChanges } from './types.js';
export type { Facts } from './built-outputs.js';
export { alreadyWrapped } from './guard.js';

/** Longer commands are left alone: the hook must stay fast, and no real test command is this long. */
export const MAX_COMMAND = 64 * 1024;

/** Heavy or not, the rule behind the decision, and (when heavy) where to cut the command; `facts` from the caller (the workers' platforms). */
export function classify(command: string, rules: RuleChanges = {}, facts: Facts = {}): Classification {
  try {
    if (typeof command !== 'string') return { heavy: false, rule: 'local: cannot parse (not a string)', reason: 'the command is not text: left alone.' };
    if (command.length > MAX_COMMAND)
      return { heavy: false, rule: 'local: cannot parse (too long)', reason: `the command is longer than ${MAX_COMMAND} characters: left alone.` };
    if (alreadyWrapped(command))
      return { heavy: false, rule: 'guard: already runs through sparehand run', reason: 'the command already goes through `sparehand run`: left alone.' };
    if (turnedOff(command)) return { heavy: false, rule: 'off: SPAREHAND=off', reason: 'the command carries SPAREHAND=off: left alone.' };
    return analyze(command, rules && typeof rules === 'object' ? rules : {}, facts && typeof facts === 'object' ? facts : {});
  } catch (e) {
    if (isParseError(e)) {
      return { heavy: false, rule: `local: cannot parse (${e.message})`, reason: `sparehand cannot follow this command reliably (${e.message}): left alone.` };
    }
    if (e instanceof RangeError) {
      return { heavy: false, rule: 'local: cannot parse (nested too deep)', reason: 'the command nests too deep to follow: left alone.' };
    }
    // A bug: the hook's one fail-open catch logs it (lib/hook/main.ts); `sparehand classify` reports it.
    throw e;
  }
}

/** Single-quotes a string for bash so that bash hands over exactly these bytes (`'` becomes `'\''`). */
export function bashQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/**
 * The command with each heavy part sent through `<invocation> run --or-local [--timeout Ns] -- '<part>'`, the rest
 * as written. `timeoutS`: the time each run has (the tool's own limit on the call, less a margin to report in).
 * `splits`: which parts go as `run --or-local --split auto` (the config's `split`, lib/split/wanted.ts).
 */
export function rewriteCommand(c: Classification, invocation: string, timeoutS?: number, splits?: (part: string) => boolean): string {
  if (!c.wrap) throw new SparehandError('INTERNAL', 'rewriteCommand: the command is not heavy');
  const runWith = (split: boolean) =>
    `${invocation} run --or-local${split ? ' --split auto' : ''}${timeoutS === undefined ? '' : ` --timeout ${timeoutS}s`} --`;
  // A piece moved into the sent one before it (`2>&1`) is part of that one's text.
  const parts: Array<{ text: string; send: boolean }> = [];
  let last: { text: string; send: boolean } | undefined;
  for (const p of c.wrap) {
    if (p.into && last) {
      last.text += p.as ?? p.text;
      continue;
    }
    const part = { text: p.as ?? p.text, send: p.send };
    parts.push(part);
    if (p.send) last = part;
  }
  return parts.map((p) => (p.send ? `${runWith(splits?.(p.text) === true)} ${bashQuote(p.text)}` : p.text)).join('');
}
