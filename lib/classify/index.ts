// Placeholder until the classifier lands: nothing is heavy.
import type { Classification, RuleChanges } from './types.js';

export type { Classification, RuleChanges } from './types.js';

export function classify(command: string, _rules: RuleChanges = {}): Classification {
  return { heavy: false, rule: 'none', reason: `not classified yet: ${command}` };
}

/** The command with its heavy part sent through `<invocation> run --or-local -- '<inner>'`. */
export function rewriteCommand(c: Classification, invocation: string): string {
  if (!c.wrap) throw new Error('not heavy');
  return `${c.wrap.before}${invocation} run --or-local -- ${c.wrap.inner}${c.wrap.after}`;
}

/** True when the command already goes through `sparehand run` (any path, npx, env prefixes). */
export function alreadyWrapped(_command: string): boolean {
  return false;
}
