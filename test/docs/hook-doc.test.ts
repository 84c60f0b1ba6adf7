// docs/hook.md's examples are what `sparehand classify` really prints: each `$ sparehand classify …` line is run by
// bash with the built CLI (a new HOME, no config), and its output must be what the page shows under it.
// (`npm run docs:agents` writes them: lib/docs/classify-examples.ts.)
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_BEGIN, EXAMPLES_END, classifyExamples, renderClassifyExamples } from '../../lib/docs/classify-examples.js';
import { BIN } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';

const page = readFileSync(new URL('../../docs/hook.md', import.meta.url), 'utf8');
const examples = classifyExamples(page);

describe("docs/hook.md's classify examples", () => {
  it('are there, between the markers (regenerate with `npm run docs:agents`)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    expect(examples.map((e) => e.line)).toContain("sparehand classify -- 'npm test 2>&1 | tail -50'");
  });

  it.each(examples.map((e) => [e.line, e.shown]))('%s', async (line, shown) => {
    const bin = tempDir('sparehand-docs-bin-');
    tool(bin, 'sparehand', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`);
    const r = await execa('bash', ['-c', line], {
      cwd: tempDir('sparehand-docs-cwd-'),
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: tempDir('sparehand-home-') },
      extendEnv: false,
      reject: false,
    });
    expect([r.exitCode, (r.stdout as string).trim()]).toEqual([0, shown]);
  });

  it('the generator writes each output under its command and leaves the rest of the page as it is', async () => {
    const doc = `# T\n\ntext\n\n${EXAMPLES_BEGIN}\n\`\`\`\n$ sparehand classify -- a\nold\nlines\n\n$ sparehand classify -- b\n\`\`\`\n${EXAMPLES_END}\n\nafter\n`;
    const next = await renderClassifyExamples(doc, async (line) => `out of ${line}\n`);
    expect(next).toBe(
      `# T\n\ntext\n\n${EXAMPLES_BEGIN}\n\`\`\`\n$ sparehand classify -- a\nout of sparehand classify -- a\n\n$ sparehand classify -- b\nout of sparehand classify -- b\n\`\`\`\n${EXAMPLES_END}\n\nafter\n`,
    );
    expect(classifyExamples(next).map((e) => e.shown)).toEqual(['out of sparehand classify -- a', 'out of sparehand classify -- b']);
  });
});
