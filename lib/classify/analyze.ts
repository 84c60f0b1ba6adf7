// A whole command string → heavy or not, the rule that decided, and where to cut it.
import { type SparehandError, isSparehandError } from '../errors.js';
import type { Verdict } from './kinds.js';
import { type ListItem, parse } from './parse.js';
import type { Facts } from './built-outputs.js';
import type { Classification, RuleChanges } from './types.js';
import { split } from './split.js';
import { verdictOf } from './verdict.js';
import { listProblem, type Verdicts } from './worker-safe.js';

const MAX_DEPTH = 3;

/** Every simple command in the list (into subshells), in order, with its verdict. */
function judgeAll(items: readonly ListItem[], rules: RuleChanges, depth: number, verdicts: Verdicts): void {
  for (const item of items) {
    for (const c of item.pipeline.commands) {
      if (c.kind === 'subshell') judgeAll(c.body, rules, depth, verdicts);
      else if (c.words.length === 0) verdicts.set(c, c.assignments.length ? ASSIGNMENT_ONLY : REDIRECT_ONLY);
      else
        verdicts.set(
          c,
          verdictOf(c.words, rules, (src) => nested(src, rules, depth + 1)),
        );
    }
  }
}
const ASSIGNMENT_ONLY: Verdict = { kind: 'light', rule: 'light: assignment', why: 'only sets variables' };
const REDIRECT_ONLY: Verdict = { kind: 'none', rule: 'none', why: 'only opens files' };

// A `bash -c` program: heavy only when all of it can run on a worker as it is.
function nested(src: string, rules: RuleChanges, depth: number): Verdict {
  if (depth > MAX_DEPTH) return { kind: 'local', rule: 'local: cannot parse (nested too deep)', why: 'nests shells too deep to follow' };
  let items: ListItem[];
  try {
    items = parse(src);
  } catch (e) {
    return { kind: 'local', rule: `local: cannot parse (${(e as Error).message})`, why: 'cannot be followed reliably' };
  }
  const verdicts: Verdicts = new Map();
  judgeAll(items, rules, depth, verdicts);
  const all = [...verdicts.values()];
  const loc = all.find((v) => v.kind === 'local');
  if (loc) return loc;
  const hv = all.find((v) => v.kind === 'heavy');
  if (!hv)
    return all.every((v) => v.kind === 'light')
      ? { kind: 'light', rule: 'light: bash -c', why: 'is quick' }
      : { kind: 'none', rule: 'none', why: 'matches no heavy-command rule' };
  const p = listProblem(items, verdicts);
  return p ? { kind: 'local', rule: p.rule, why: p.why } : hv;
}

const sentence = (command: string, v: { rule: string; why: string }, tail: string): string => {
  const label = v.rule.slice(v.rule.indexOf(': ') + 2) || command;
  return `${label} ${v.why}: ${tail}`;
};

/** Classifies a command string; throws SparehandError('PARSE') when it cannot be followed. */
export function analyze(command: string, rules: RuleChanges, facts: Facts = {}): Classification {
  const items = parse(command, facts.depth);
  const verdicts: Verdicts = new Map();
  judgeAll(items, rules, 0, verdicts);
  let hv: Verdict | undefined;
  let loc: Verdict | undefined;
  for (const v of verdicts.values()) {
    if (v.kind === 'heavy') {
      hv = v;
      break;
    }
    if (v.kind === 'local') loc ??= v;
  }
  if (!hv) {
    const only = loc ?? (verdicts.size === 1 ? (verdicts.values().next().value as Verdict) : undefined);
    if (only && only.rule !== 'none') return { heavy: false, rule: only.rule, reason: sentence(command, only, LEFT_ALONE) };
    return { heavy: false, rule: 'none', reason: `no heavy-command rule matches any part of it: ${LEFT_ALONE}` };
  }
  const s = split(command, items, verdicts, facts);
  if ('verdict' in s) return { heavy: false, rule: s.verdict.rule, reason: sentence(command, s.verdict, LEFT_ALONE) };
  if ('problem' in s) {
    return {
      heavy: false,
      rule: s.problem.rule,
      reason: `${hv.rule.slice(hv.rule.indexOf(': ') + 2)} is heavy, but the command ${s.problem.why}: ${LEFT_ALONE}`,
    };
  }
  const here = s.here.length === 0 ? '' : `; ${s.here.join(', ')} ${s.here.length === 1 ? 'runs' : 'run'} here`;
  const p = facts.otherPlatform;
  const along =
    s.along && p
      ? `; ${s.along.join(', ')} ${s.along.length === 1 ? 'goes' : 'go'} with it, as ${s.along.length === 1 ? 'it runs' : 'they run'} what it builds and the worker's platform (${p.worker}) is not this machine's (${p.here})`
      : '';
  return {
    heavy: true,
    rule: hv.rule,
    reason: sentence(command, hv, `heavy, so it goes to a worker (or runs here when none is free)${along}${here}.`),
    wrap: s.pieces,
  };
}

const LEFT_ALONE = 'left alone, it runs here.';

export const isParseError = (e: unknown): e is SparehandError => isSparehandError(e) && e.code === 'PARSE';
