// Where a link the command made leads, judged by where its whole chain of links ends, not by its own text: `x -> .`
// and `up -> x/..` are each inside the project on their own, and together lead to its parent. The chain is
// followed through the project as it will be after the apply — the links the report makes as well as those here
// — and through every state a path may end in (the report's, or what is here when the report's change becomes a
// conflict), so a link is made only when every way it can be read ends inside the project. Worker input: every
// walk is bounded (40 links in a row, as the kernel's ELOOP; a budget of steps for the whole report).
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Change } from '../remote/change.js';
import { isGitName, isOwnName } from './guard.js';

/** What a path is (one of its possible states): a link and its target, or anything else that is there. */
export type Entry = { link: string } | 'folder' | 'other';

const OUTSIDE = 'it is a link to a place outside the project';
const INTO = "it is a link into .git or sparehand's own folder";
const ENDLESS = 'it is a chain of links that does not end here (a loop, or more than 40 links)';
const TOO_MANY = 'there are more links to follow in this report than sparehand follows';
const MAX_HOPS = 40;

/** A budget of steps shared by every link of one report (a hostile report may hold millions of links). */
export interface Budget {
  steps: number;
}

/**
 * Why the link at `path` with `target` may not be made here, following every link on its way (`states`: what a
 * path of the project may be after the apply, each of its possible states; none: nothing is there).
 */
export function refusedChain(path: string, target: string, states: (p: string) => readonly Entry[], budget: Budget): string | undefined {
  if (target === '') return 'it is a link to nothing';
  // Depth first over (the folder reached, the steps left, links followed so far).
  const todo: Array<{ at: string[]; steps: string[]; hops: number }> = [{ at: path.split('/').slice(0, -1), steps: target.split('/'), hops: 1 }];
  while (todo.length > 0) {
    const { at, steps, hops } = todo.pop() as (typeof todo)[number];
    if (hops > MAX_HOPS) return ENDLESS;
    for (let i = 0; i < steps.length; i++) {
      if (--budget.steps < 0) return TOO_MANY;
      const step = steps[i] as string;
      if (step === '' && i === 0) return OUTSIDE;
      if (step === '' || step === '.') continue;
      if (step === '..') {
        if (at.length === 0) return OUTSIDE;
        at.pop();
        continue;
      }
      if (isGitName(step) || isOwnName(step)) return INTO;
      const all = states([...at, step].join('/'));
      const links = all.filter((e): e is { link: string } => typeof e === 'object');
      // Each link on the way is followed from its folder, with the steps left after it.
      for (const l of links) todo.push({ at: [...at], steps: [...l.link.split('/'), ...steps.slice(i + 1)], hops: hops + 1 });
      // Only links there: the walk goes on through them alone.
      if (links.length > 0 && links.length === all.length) break;
      at.push(step);
    }
  }
  return undefined;
}

/**
 * The states each path may be in after the apply: what the report makes there (a deletion makes nothing), and what
 * is here now (`root`, read once per path).
 */
export function statesAfter(changes: readonly Change[], root: string): (p: string) => readonly Entry[] {
  const made = new Map<string, Entry>();
  for (const c of changes) {
    if (c.op === 'D') continue;
    made.set(c.path, c.type === 'l' ? { link: c.target } : c.type === 'd' ? 'folder' : 'other');
  }
  const here = new Map<string, Entry | undefined>();
  const onDisk = (p: string): Entry | undefined => {
    if (here.has(p)) return here.get(p);
    let e: Entry | undefined;
    try {
      const st = lstatSync(join(root, p));
      e = st.isSymbolicLink() ? { link: readlinkSync(join(root, p)) } : st.isDirectory() ? 'folder' : 'other';
    } catch {
      e = undefined;
    }
    here.set(p, e);
    return e;
  };
  return (p) => {
    const out: Entry[] = [];
    const m = made.get(p);
    if (m !== undefined) out.push(m);
    const d = onDisk(p);
    if (d !== undefined && !(m !== undefined && JSON.stringify(m) === JSON.stringify(d))) out.push(d);
    // (A path the report deletes or replaces may still be here when that is a conflict: the state here stays one.)
    return out;
  };
}

/** Each link the report makes that may not be made here, with why (by its index). */
export function refusedChains(changes: readonly Change[], root: string): Map<number, string> {
  const states = statesAfter(changes, root);
  const budget: Budget = { steps: 2_000_000 };
  const out = new Map<number, string>();
  for (const c of changes) {
    if (c.type !== 'l' || c.op === 'D') continue;
    const why = refusedChain(c.path, c.target, states, budget);
    if (why !== undefined) out.set(c.index, why);
  }
  return out;
}
