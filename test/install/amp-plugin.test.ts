// The Amp plugin install writes: loaded as Amp loads a plugin (its default export called with the plugin API), its
// tool.call handler rewrites a heavy Bash command, leaves the rest, and is harmless when sparehand is gone.
import { pathToFileURL } from 'node:url';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../lib/agents/index.js';
import type { OwnFileTarget } from '../../lib/agents/types.js';
import { classify } from '../../lib/classify/index.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { tempDir } from '../helpers/context.js';

const target = AGENTS.amp!.install.targets.find((t) => t.scope === 'user') as OwnFileTarget;

/** The plugin's tool.call answers for these Bash commands (plain JavaScript, so node loads a copy named .mjs). */
async function answers(opts: { script?: string }, commands: string[]): Promise<unknown[]> {
  const home = tempDir('sparehand-home-');
  const file = join(home, 'sparehand.mjs');
  writeFileSync(file, target.content(hookCommand('amp', opts)));
  const source = `
const m = await import(${JSON.stringify(pathToFileURL(file).href)});
let handler;
m.default({ on: (name, fn) => { if (name === 'tool.call') handler = fn; } });
const out = [];
for (const cmd of ${JSON.stringify(commands)}) out.push((await handler({ tool: 'Bash', toolUseID: 't', input: { cmd, cwd: '/x' } }, { thread: { id: 'T-1' } })) ?? null);
process.stdout.write(JSON.stringify(out));
`;
  const r = await execa(process.execPath, ['--input-type=module', '-e', source], { env: { HOME: home, PATH: '/usr/bin:/bin' }, extendEnv: false, cwd: home });
  return JSON.parse(r.stdout) as unknown[];
}

describe('Amp plugin', () => {
  it("opens with the line Amp's loader asks for, and its hook command reads back", () => {
    const text = target.content(hookCommand('amp'));
    expect(text.split('\n')[0]).toBe('// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now');
    expect(target.commandOf(text)).toMatch(/agent hook --for amp$/);
    expect(target.commandOf(readFileSync(new URL(import.meta.url), 'utf8'))).toBeUndefined();
  });

  it(`tool.call ${classify('npm test').heavy ? 'modifies' : 'leaves'} \`npm test\`, keeping the other input fields, and leaves \`ls\``, async () => {
    const [heavy, light] = (await answers({}, ['npm test', 'ls'])) as [{ action: string; input: { cmd: string; cwd: string } } | null, unknown];
    expect(light).toBeNull();
    expect(heavy?.action).toBe('modify');
    expect(heavy?.input.cmd).toMatch(/ run --or-local -- 'npm test'$/);
    expect(heavy?.input.cwd).toBe('/x');
  });

  it('leaves every call alone when sparehand is gone', async () => {
    expect(await answers({ script: '/nowhere/bin/sparehand.js' }, ['npm test'])).toEqual([null]);
  });
});
