// Case twins, names only: a few explicit rows for each rule, then every order of a few changes over every state
// here, on a simulated disk that ignores case, with the rules that must hold in each (they run in milliseconds).
import { describe, expect, it } from 'vitest';
import type { ChangeOp, EntryType } from '../../lib/remote/change.js';
import { type NamesHere, caseTwins, twinAmong } from '../../lib/sync/case-twin.js';

interface Step {
  op: ChangeOp;
  type: EntryType;
  path: string;
}
const step = (s: string): Step => {
  const [op, type, path] = s.split(' ') as [ChangeOp, EntryType, string];
  return { op, type, path };
};

/** A disk that ignores case, holding `paths` (each spelled as it was made): a folder's names, found in any case. */
function foldingDisk(paths: readonly string[]) {
  const held = new Set(paths);
  const namesHere: NamesHere = (folder) => {
    const at = folder === '' ? '' : [...held].find((p) => p.toLowerCase() === folder.toLowerCase());
    if (at === undefined) return undefined;
    const prefix = at === '' ? '' : `${at}/`;
    return [...held].filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/')).map((p) => p.slice(prefix.length));
  };
  return { held, namesHere };
}

/** The twins of `steps` in this order, over `here`, with what was applied made on the disk as the apply would. */
function run(here: readonly string[], steps: readonly Step[]): Array<string | undefined> {
  const disk = foldingDisk(here);
  const twinOf = caseTwins();
  return steps.map((s) => {
    const twin = twinOf(s, disk.namesHere);
    if (s.op === 'D') disk.held.delete(s.path);
    if (s.op === 'C' && twin === undefined) disk.held.add(s.path);
    return twin;
  });
}

describe('case twins', () => {
  it('explicit rows: a name here, a name created before, a folder with a twin and all it holds; a name freed first is none', () => {
    const twins = (here: string[], ...steps: string[]) => run(here, steps.map(step));
    expect(twinAmong('Foo.ts', ['foo.ts', 'bar.ts'])).toBe('foo.ts');
    expect(twinAmong('foo.ts', ['foo.ts'])).toBeUndefined();
    expect(twins(['src', 'src/foo.ts'], 'C f src/Foo.ts', 'C f src/Bar.ts', 'C f src/bar.ts')).toEqual(['src/foo.ts', undefined, 'src/Bar.ts']);
    // A rename by case only: the deletion comes first and frees the name.
    expect(twins(['foo.ts'], 'D f foo.ts', 'C f Foo.ts')).toEqual([undefined, undefined]);
    // The deletion was kept (yours changed here): the name is still here.
    expect(twins(['foo.ts'], 'C f Foo.ts')).toEqual(['foo.ts']);
    expect(
      twins(['src', 'src/b.ts'], 'C d Src', 'C f Src/a.ts', 'C d Src/deep', 'C f Src/deep/c.ts', 'C d Out', 'C f Out/x.js', 'C d out', 'C f out/y.js'),
    ).toEqual(['src', 'src/a.ts', 'src/deep', 'src/deep/c.ts', undefined, undefined, 'Out', 'Out/y.js']);
    // Only a created path has a twin: a change to a path here is to the one file it names.
    expect(twins(['foo.ts'], 'M f Foo.ts', 'T f Foo.ts', 'D f Foo.ts')).toEqual([undefined, undefined, undefined]);
    // The same path twice is no twin of itself.
    expect(twins([], 'C f a', 'C f a')).toEqual([undefined, undefined]);
    // Of several created, the one seen last is named.
    expect(twins([], 'C f FOO', 'C f Foo', 'C f foo')).toEqual([undefined, 'FOO', 'FOO']);
  });

  it('in every order of a few changes over every state here: nothing is ever merged, and nothing without a twin is called one', () => {
    const heres: string[][] = [[], ['b'], ['B'], ['a', 'a/x'], ['A']];
    const alphabet = ['C d a', 'C d A', 'C f a/x', 'C f a/X', 'C f A/x', 'C f b', 'C f B', 'M f b', 'D f b'].map(step);
    let n = 0;
    const orders = function* (left: readonly Step[], size: number): Generator<Step[]> {
      yield [];
      if (size === 0) return;
      for (const [i, s] of left.entries()) for (const rest of orders([...left.slice(0, i), ...left.slice(i + 1)], size - 1)) yield [s, ...rest];
    };
    for (const here of heres)
      for (const steps of orders(alphabet, 4)) {
        // As a report can hold them: a change to a path here as it is spelled, a new path in a folder that is.
        const disk = new Set(here);
        const real = steps.every((s) => {
          const parent = s.path.includes('/') ? s.path.slice(0, s.path.lastIndexOf('/')) : '';
          const ok = s.op === 'C' ? !disk.has(s.path) && (parent === '' || disk.has(parent)) : disk.has(s.path);
          if (s.op === 'C') disk.add(s.path);
          if (s.op === 'D') disk.delete(s.path);
          return ok;
        });
        if (!real) continue;
        n++;
        const twins = run(here, steps);
        const label = JSON.stringify({ here, steps: steps.map((s) => `${s.op} ${s.path}`), twins });
        const held = new Set(here);
        const created: string[] = [];
        const twinFolders: string[] = [];
        for (const [i, s] of steps.entries()) {
          const twin = twins[i];
          if (s.op !== 'C') expect(twin, label).toBeUndefined();
          if (twin !== undefined) expect([twin !== s.path, twin.toLowerCase()], label).toEqual([true, s.path.toLowerCase()]);
          const inTwinFolder = twinFolders.some((f) => s.path.startsWith(`${f}/`));
          const other = [...held, ...created].some((p) => p !== s.path && p.toLowerCase() === s.path.toLowerCase());
          // Never merged: no other spelling of a name here or made before is given no twin; none is invented.
          if (s.op === 'C') expect(twin !== undefined, label).toBe(inTwinFolder || other);
          if (s.op === 'C' && !inTwinFolder) created.push(s.path);
          if (s.op === 'C' && s.type === 'd' && twin !== undefined) twinFolders.push(s.path);
          if (s.op === 'C' && twin === undefined) held.add(s.path);
          if (s.op === 'D') held.delete(s.path);
        }
      }
    expect(n).toBeGreaterThan(500);
  });
});
