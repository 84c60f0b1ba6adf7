// A whole command string → heavy or not, the rule that decided, and where to cut it.
import { SparehandError, isSparehandError } from '../errors.js';
import type { Verdict } from './kinds.js';
import { type Item, parse, type Simple } from './parse.js';
import type { Classification, RuleChanges } from './types.js';
import { verdictOf } from './verdict.js';
import { cut, listProblem } from './wrap.js';

const MAX_DEPTH = 3;

/** Every simple command in the list (into subshells), in order, with its verdict. */
function verdicts(items: readonly Item[], rules: RuleChanges, depth: number, V: Map<Simple, Verdict>): void {
  for (const it of items) {
    for (const c of it.p.cmds) {
      if (c.k === 'sub') verdicts(c.body, rules, depth, V);
      else if (c.words.length === 0) V.set(c, { kind: c.assigns.length ? 'light' : 'none', rule: c.assigns.length ? 'light: assignment' : 'none', why: c.assigns.length ? 'only sets variables' : 'only opens files' });
      else V.set(c, verdictOf(c.words, rules, (src) => nested(src, rules, depth + 1)));
    }
  }
}

// A `bash -c` program: heavy only when all of it can run on a worker as it is.
function nested(src: string, rules: RuleChanges, depth: number): Verdict {
  if (depth > MAX_DEPTH) return { kind: 'local', rule: 'local: cannot parse (nested too deep)', why: 'nests shells too deep to follow' };
  let items: Item[];
  try {
    items = parse(src);
  } catch (e) {
    return { kind: 'local', rule: `local: cannot parse (${(e as Error).message})`, why: 'cannot be followed reliably' };
  }
  const V = new Map<Simple, Verdict>();
  verdicts(items, rules, depth, V);
  const all = [...V.values()];
  const loc = all.find((v) => v.kind === 'local');
  if (loc) return loc;
  const hv = all.find((v) => v.kind === 'heavy');
  if (!hv) return all.every((v) => v.kind === 'light') ? { kind: 'light', rule: 'light: bash -c', why: 'is quick' } : { kind: 'none', rule: 'none', why: 'matches no heavy-command rule' };
  const p = listProblem(items, V);
  return p ? { kind: 'local', rule: p.rule, why: p.why } : hv;
}

const sentence = (command: string, v: { rule: string; why: string }, tail: string): string => {
  const label = v.rule.slice(v.rule.indexOf(': ') + 2) || command;
  return `${label} ${v.why}: ${tail}`;
};

/** Classifies a command string; throws SparehandError('PARSE') when it cannot be followed. */
export function analyze(command: string, rules: RuleChanges): Classification {
  const items = parse(command);
  const V = new Map<Simple, Verdict>();
  verdicts(items, rules, 0, V);
  const all = [...V.values()];
  const loc = all.find((v) => v.kind === 'local');
  if (loc) return { heavy: false, rule: loc.rule, reason: sentence(command, loc, 'left alone, it runs here.') };
  const hv = all.find((v) => v.kind === 'heavy');
  if (!hv) {
    const only = all.length === 1 ? (all[0] as Verdict) : undefined;
    if (only && only.rule !== 'none') return { heavy: false, rule: only.rule, reason: sentence(command, only, 'left alone, it runs here.') };
    return { heavy: false, rule: 'none', reason: 'no heavy-command rule matches any part of it: left alone, it runs here.' };
  }
  const c = cut(command, items, V);
  if ('rule' in c) {
    return { heavy: false, rule: c.rule, reason: `${hv.rule.slice(hv.rule.indexOf(': ') + 2)} is heavy, but the command ${c.why}: left alone, it runs here.` };
  }
  return { heavy: true, rule: hv.rule, reason: sentence(command, hv, 'heavy, so it goes to a worker (or runs here when none is free).'), wrap: c };
}

export const isParseError = (e: unknown): e is SparehandError => isSparehandError(e) && e.code === 'PARSE';
