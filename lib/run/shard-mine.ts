// For a shard of a split run: what sparehand wrote here that the shard may replace as its own (an ignored output
// another run of this machine last wrote, lib/sync/ancestor.ts mineIndex), minus what runs that ended while this
// shard ran wrote — its sibling shards'. Two shards writing one path are then a conflict with both versions kept,
// never one shard's version silently replacing another's (docs/run.md "Split").
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAncestor } from '../sync/ancestor.js';
import { OWN_FOLDER } from '../state/own-folder.js';

/** mineIndex's answer, from the copies whose record was last saved before `since`. */
export function mineBefore(root: string, since: Date): (path: string) => string[] {
  const dir = join(root, OWN_FOLDER, 'sync');
  const byPath = new Map<string, string[]>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    /* none yet */
  }
  for (const n of names) {
    try {
      // Saved while this shard ran (or at the same millisecond): a sibling's, not to be replaced in silence.
      if (statSync(join(dir, n)).mtimeMs >= since.getTime()) continue;
    } catch {
      continue;
    }
    for (const [p, e] of Object.entries(loadAncestor(root, n.slice(0, -'.json'.length)).paths)) {
      if (e.s === undefined || e.t === 'd') continue;
      byPath.set(p, [...(byPath.get(p) ?? []), e.h]);
    }
  }
  return (p) => byPath.get(p) ?? [];
}
