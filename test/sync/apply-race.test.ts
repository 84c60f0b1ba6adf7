// Writes here are made through folders already opened (issue 35 item 4), both ways open-folders.ts reaches names:
// through /proc/self/fd (Linux) and from inside the folder (the working folder, a Mac's way, run here on Linux).
// A real racing process swaps the folder being written for a link to ../outside while 4,000 files are applied.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyChanges } from '../../lib/sync/apply.js';
import type { Change } from '../../lib/remote/change.js';
import type { Reach } from '../../lib/sync/open-folders.js';
import { printable } from '../../lib/safe-text.js';
import { tempDir } from '../helpers/context.js';
import { md5, until } from '../helpers/project.js';

/** 4,000 new files in dist/, staged as a run stages them. */
function manyFiles(staging: string): Change[] {
  const changes: Change[] = [
    { index: 0, op: 'C', type: 'd', mode: 0o755, mtime: 1_700_000_000, size: 0, base: undefined, hash: undefined, path: 'dist', target: '' },
  ];
  for (let i = 1; i <= 4000; i++) {
    const content = `${i}\n`;
    const staged = join(staging, String(i));
    writeFileSync(staged, content);
    changes.push({
      index: i,
      op: 'C',
      type: 'f',
      mode: 0o644,
      mtime: 1_700_000_000,
      size: content.length,
      base: undefined,
      hash: md5(content),
      path: `dist/f${String(i).padStart(4, '0')}`,
      target: '',
      staged,
    });
  }
  return changes;
}

const options = (root: string, staging: string, reach: Reach) => ({
  root,
  conflictsDir: () => 'kept',
  scratch: () => staging,
  foldsCase: () => false,
  known: () => ({ sent: false, mine: [] }),
  there: 'w0:copy',
  printable,
  reach,
});

describe.each(['proc', 'cwd'] as const)('names reached %s', (reach) => {
  it('a racing process swaps dist for a link to ../outside during a 4,000-file apply: nothing lands outside, one conflict stops it there', async () => {
    const parent = tempDir('sparehand-race-');
    const root = join(parent, 'proj');
    const outside = join(parent, 'outside');
    const staging = tempDir('sparehand-race-staging-');
    mkdirSync(root);
    mkdirSync(outside);
    const changes = manyFiles(staging);
    const racer = spawn(
      'perl',
      [
        '-e',
        'open(my $r, ">", "ready"); close $r; select(undef, undef, undef, 0.0002) until -e "dist/f0100"; rename("dist", "dist.away") or die; symlink("../outside", "dist") or die; open(my $f, ">", "swapped")',
      ],
      { cwd: root, stdio: 'inherit' },
    );
    const ended = new Promise((resolve) => racer.on('exit', resolve));
    try {
      expect(await until(() => existsSync(join(root, 'ready')))).toBe(true);
      const cwd = process.cwd();
      const r = applyChanges(changes, options(root, staging, reach));
      expect(process.cwd()).toBe(cwd);
      expect(await ended).toBe(0);
      expect(existsSync(join(root, 'swapped'))).toBe(true);
      expect(readdirSync(outside)).toEqual([]);
      expect(r.conflicts).toEqual([{ kind: 'moved-here', path: 'dist', there: 'w0:copy' }]);
      const landed = readdirSync(join(root, 'dist.away')).length;
      expect(landed).toBeGreaterThanOrEqual(100);
      expect(landed).toBeLessThan(4000);
      expect(r.files).toBe(landed);
      // What was not written is not taken for applied (the ancestor, the warm send's fingerprint).
      expect(changes.filter((c) => r.outcomes.get(c.index) === 'applied').length).toBe(landed + 1);
    } finally {
      racer.kill();
    }
  });
});
