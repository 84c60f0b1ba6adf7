// The worker's find split over its processors (lib/remote/worker/find.pl) must print exactly what one `find .`
// with the same tests prints: a real tree with folders to prune at every depth, links to folders, files at the top
// levels, run through the real perl and find, compared with one plain find.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIND_PL } from '../../lib/remote/worker/parts.js';
import { tempDir } from '../helpers/context.js';

/** Runs `body` (perl, after the find subs) in `dir`, with `ways` finds at most: its stdout. */
function perl(dir: string, body: string, ways: number): string {
  return execFileSync('perl', ['-e', `use strict; use warnings;\n${FIND_PL}\n$find_ways = ${ways};\n${body}`], { cwd: dir, encoding: 'utf8' });
}

function tree(): string {
  const root = tempDir('sparehand-find-split-');
  for (let a = 0; a < 6; a++) {
    for (let b = 0; b < 4; b++) {
      const d = join(root, `a${a}`, `b${b}`);
      mkdirSync(join(d, 'c', 'node_modules', 'x'), { recursive: true });
      writeFileSync(join(d, 'c', 'f.js'), 'f');
      writeFileSync(join(d, 'c', 'node_modules', 'x', 'm.js'), 'm');
      writeFileSync(join(d, 'g.js'), 'g');
    }
    writeFileSync(join(root, `a${a}`, 'top.js'), 't');
    mkdirSync(join(root, `a${a}`, 'node_modules', 'deep'), { recursive: true });
    writeFileSync(join(root, `a${a}`, 'node_modules', 'deep', 'n.js'), 'n');
  }
  mkdirSync(join(root, 'node_modules', 'p', 'q'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'p', 'q', 'z.js'), 'z');
  writeFileSync(join(root, 'root.js'), 'r');
  symlinkSync('a0', join(root, 'link'));
  symlinkSync('../a1/b1', join(root, 'a2', 'linkdir'));
  return root;
}

const lines = (out: string) => out.split('\0').filter(Boolean).sort();
const PRUNES: Record<string, string> = {
  none: '[]',
  'by name': "['(', '-name', 'node_modules', ')']",
  'by one ERE': "['-regextype', 'posix-extended', '-regex', '.*/node_modules']",
};

describe('the split find', () => {
  for (const [name, prune] of Object.entries(PRUNES)) {
    it(`prints what one find prints, pruning ${name}`, () => {
      const root = tree();
      const body = `my $o = find_split_all(${prune}, ['-print0']) or exit 3; print join("\\0", @$o), "\\0";`;
      const split = lines(perl(root, body, 3));
      const one = lines(perl(root, body, 1));
      const plain = lines(
        execFileSync('find', ['.', ...(name === 'none' ? [] : ['-name', 'node_modules', '-prune', '-o']), '-print0'], { cwd: root, encoding: 'utf8' }),
      );
      expect(one).toEqual(plain);
      expect(split).toEqual(plain);
      expect(split.some((p) => p.startsWith('./a3/b2/c/'))).toBe(true);
      if (name !== 'none') expect(split.some((p) => p.includes('node_modules/'))).toBe(false);
    });
  }

  it('says whether anything is newer than a marker, however deep', () => {
    const root = tree();
    const old = new Date(Date.now() - 60_000);
    writeFileSync(join(root, '.mark'), '');
    const any = "my $a = find_split_any(['-cnewer', '.mark', '-print']); print defined $a ? $a : 'undef';";
    // Nothing newer than the marker yet (ctime cannot be set back: the marker is made after the tree).
    expect(perl(root, any, 3)).toBe('0');
    // Past the marker's time (file times move in clock ticks of a few milliseconds).
    execFileSync('sleep', ['0.05']);
    writeFileSync(join(root, 'a4', 'b3', 'c', 'f.js'), 'changed');
    utimesSync(join(root, 'a4', 'b3', 'c', 'f.js'), old, old);
    expect(perl(root, any, 3)).toBe('1');
    expect(perl(root, any, 1)).toBe('1');
  });
});
