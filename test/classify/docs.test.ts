// docs/classify.md shows real output: every `$ sparehand classify …` example there is run through bash with the
// built CLI, and what it prints must be what the page shows under it.
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';

const page = readFileSync(new URL('../../docs/classify.md', import.meta.url), 'utf8');

/** Each `$ sparehand classify …` line in a code block, with the lines under it up to the next `$` line or the block's end. */
function examples(): { line: string; shown: string }[] {
  const out: { line: string; shown: string }[] = [];
  for (const block of page.split('```').filter((_, i) => i % 2 === 1)) {
    let current: { line: string; shown: string[] } | undefined;
    for (const l of block.split('\n')) {
      if (l.startsWith('$ sparehand classify')) {
        if (current) out.push({ line: current.line, shown: current.shown.join('\n').trim() });
        current = { line: l.slice(2), shown: [] };
      } else current?.shown.push(l);
    }
    if (current) out.push({ line: current.line, shown: current.shown.join('\n').trim() });
  }
  return out;
}

describe('docs/classify.md examples', () => {
  const all = examples();
  it('finds the examples (sanity)', () => {
    expect(all.length).toBeGreaterThan(15);
  });

  it.each(all.map((e) => [e.line, e.shown]))('%s', async (line, shown) => {
    const bin = tempDir('sparehand-docs-bin-');
    tool(bin, 'sparehand', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`);
    const r = await execa('bash', ['-c', line], {
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: tempDir('sparehand-home-') },
      extendEnv: false,
      reject: false,
    });
    expect((r.stdout as string).trim()).toBe(shown);
  });
});
