// The guarded hook command of tools that block a call when the hook fails to start: sparehand gone → exit 0 and
// silence; otherwise the hook's own exit status and output pass through unchanged.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import type { JsonHookTarget } from '../../lib/agents/types.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { tempDir } from '../helpers/context.js';

const guarded = allAgents().flatMap((a) =>
  a.install.targets
    .filter((t): t is JsonHookTarget => t.kind === 'json' && t.scope === 'user')
    .filter((t) => /\|\| exit 0/.test(t.commandOf(t.entry(hookCommand(a.id))) ?? ''))
    .map((t) => [a.id, a, t] as const),
);

describe('guarded hook commands', () => {
  it('exist for the tools that block on a failing hook', () => {
    // TRAE's failure mode for command hooks is not documented: its two user-level files are guarded.
    expect(guarded.map(([id]) => id).sort()).toEqual(['copilot-cli', 'gemini-cli', 'trae', 'trae']);
  });

  it.each(guarded)('%s', async (_id, a, t) => {
    const dir = tempDir('sparehand-guard-');
    const run = async (script: string) => {
      const command = t.commandOf(t.entry(hookCommand(a.id, { script })))!;
      return execa('/bin/sh', ['-c', command], { input: '{}', reject: false, env: { PATH: '/usr/bin:/bin' }, extendEnv: false });
    };
    const gone = await run(join(dir, 'missing', 'sparehand.js'));
    expect([gone.exitCode, gone.stdout, gone.stderr]).toEqual([0, '', '']);
    const refuses = join(dir, 'refuses.js');
    writeFileSync(refuses, 'process.stderr.write("Run this instead"); process.exit(2);\n');
    const r = await run(refuses);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([2, '', 'Run this instead']);
    const answers = join(dir, 'answers.js');
    writeFileSync(answers, 'process.stdout.write(JSON.stringify({ args: process.argv.slice(2) }));\n');
    const ok = await run(answers);
    expect([ok.exitCode, JSON.parse(ok.stdout)]).toEqual([0, { args: ['agent', 'hook', '--for', a.id] }]);
  });
});
