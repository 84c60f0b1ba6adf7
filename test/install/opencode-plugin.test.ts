// The OpenCode plugin install writes: loaded as OpenCode loads it (no import from OpenCode), through the v1 and v2
// hook APIs, answering inside the tool's process (no process started for a call), and harmless when sparehand is gone
// or its own code fails.
import { pathToFileURL } from 'node:url';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { pluginSource } from '../../lib/agents/opencode-plugin.js';
import type { AgentId } from '../../lib/agents/index.js';
import { pluginCommand, pluginPrelude } from '../../lib/agents/plugin-file.js';
import { classify } from '../../lib/classify/index.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { tempDir } from '../helpers/context.js';

/** Loads the plugin in a child node (a throwaway HOME), runs `body` with `hooks` and `v2` in scope, prints its result. */
async function inPlugin(file: string, body: string, home = tempDir('sparehand-home-')): Promise<unknown> {
  const source = `
const m = await import(${JSON.stringify(pathToFileURL(file).href)});
let v2;
const hooks = await m.SparehandPlugin({ directory: ${JSON.stringify(home)}, worktree: ${JSON.stringify(home)}, tool: { hook: (name, fn) => { if (name === 'execute.before') v2 = fn; } } });
const result = await (async () => { ${body} })();
process.stdout.write(JSON.stringify(result));
`;
  const r = await execa(process.execPath, ['--input-type=module', '-e', source], { env: { HOME: home, PATH: '/usr/bin:/bin' }, extendEnv: false, cwd: home });
  return JSON.parse(r.stdout);
}

function plugin(opts: { script?: string; host?: AgentId } = {}): string {
  const file = join(tempDir('sparehand-plugin-'), 'sparehand.js');
  writeFileSync(file, pluginSource(hookCommand(opts.host ?? 'opencode', opts)));
  return file;
}

const heavy = classify('npm test').heavy;

describe('OpenCode plugin', () => {
  it(`v1 tool.execute.before and v2 execute.before ${heavy ? 'rewrite' : 'leave'} \`npm test\` in place and leave \`ls\``, async () => {
    const out = (await inPlugin(
      plugin(),
      `
      const a = { command: 'npm test', description: 'd', timeout: 120000 };
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: a });
      const b = { command: 'ls' };
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c2' }, { args: b });
      const event = { tool: 'bash', sessionID: 's', id: 'c3', input: { command: 'npm test' } };
      await v2(event);
      return { a, b, v2: event.input };
      `,
    )) as { a: { command: string; description: string; timeout: number }; b: { command: string }; v2: { command: string } };
    expect(out.b).toEqual({ command: 'ls' });
    if (heavy) {
      expect(out.a.command).toMatch(/ run --or-local --timeout \d+s -- 'npm test'$/);
      expect(out.a.description).toBe('d');
      expect(out.a.timeout).toBeGreaterThan(120000);
      expect(out.v2.command).toMatch(/ run --or-local -- 'npm test'$/);
    } else {
      expect(out).toEqual({ a: { command: 'npm test', description: 'd', timeout: 120000 }, b: { command: 'ls' }, v2: { command: 'npm test' } });
    }
  });

  it('leaves every call alone, without throwing, when sparehand is gone', async () => {
    const out = await inPlugin(
      plugin({ script: '/nowhere/bin/sparehand.js' }),
      `
      const a = { command: 'npm test' };
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: a });
      const event = { tool: 'bash', sessionID: 's', id: 'c3', input: { command: 'npm test' } };
      await v2(event);
      await hooks['tool.execute.before']({ tool: 'bash' }, undefined);
      return { a, v2: event.input };
      `,
    );
    expect(out).toEqual({ a: { command: 'npm test' }, v2: { command: 'npm test' } });
  });

  it('starts no process: nothing of node:child_process is in it', () => {
    const text = readFileSync(plugin(), 'utf8');
    expect(text).not.toMatch(/child_process|\bspawn(Sync)?\(|\bexecFile(Sync)?\(/);
  });

  it('leaves the call alone, and says why in the log, when its own code fails on the call', async () => {
    const home = tempDir('sparehand-home-');
    const out = await inPlugin(
      plugin(),
      `
      // args whose fields cannot be listed: the answer's first step (what in the call could be heavy?) throws on it.
      const a = new Proxy({ command: 'npm test' }, { ownKeys() { throw new Error('no keys here'); } });
      await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: a });
      return { command: a.command };
      `,
      home,
    );
    expect(out).toEqual({ command: 'npm test' });
    expect(readFileSync(join(home, '.local', 'state', 'sparehand', 'hook.log'), 'utf8')).toMatch(
      /opencode: internal error in the tool's own process, left alone: Error: no keys here/,
    );
  });

  it('written for another tool that loads the same API, asks the hook for that tool, which answers it', async () => {
    const file = plugin({ host: 'kilo' });
    expect(pluginCommand(readFileSync(file, 'utf8'))).toMatch(/agent hook --for kilo$/);
    const out = (await inPlugin(
      file,
      `const a = { command: 'npm test' }; await hooks['tool.execute.before']({ tool: 'bash', sessionID: 's', callID: 'c' }, { args: a }); return a;`,
    )) as { command: string };
    expect(out.command).toMatch(heavy ? / run --or-local -- 'npm test'$/ : /^npm test$/);
  });

  it("a plugin written before it named its host is read back as OpenCode's", () => {
    // As sparehand wrote it then: the prelude that asks the hook process, without the HOST line.
    const old = `${pluginPrelude(hookCommand('opencode'))}const answer = await ask({ tool, args });\n`
      .replace(/^const HOST = .*\n/m, '')
      .replace('"--for", HOST', '"--for", "opencode"')
      .replace('{ host: HOST, ...payload }', 'payload');
    expect(old).not.toContain('HOST');
    expect(pluginCommand(old)).toMatch(/agent hook --for opencode$/);
  });
});
