// The hook as the coding tools run it: a real process through bin/sparehand.js and the bundled entry.
import { readFileSync, realpathSync } from 'node:fs';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const payload = readFileSync(new URL('../fixtures/agents/claude-code/payload.json', import.meta.url), 'utf8');
const env = () => {
  const home = tempDir();
  return { HOME: home, PATH: '/usr/bin:/bin' };
};

describe('sparehand agent hook (process)', () => {
  it('rewrites a heavy command naming this node and this script by absolute path', async () => {
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: payload, env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const invocation = quote([process.execPath, realpathSync(BIN)]);
    expect(JSON.parse(r.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: {
          command: `${invocation} run --or-local -- 'npm test'`,
          description: 'Run test suite',
          timeout: 420000,
          run_in_background: false,
        },
      },
    });
  });

  it('the CLI path (without the bundle) gives the same answer', async () => {
    const e = env();
    const fast = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: payload, env: e });
    const { main } = await import('../../lib/cli.js');
    const { testContext } = await import('../helpers/context.js');
    const ctx = testContext({ home: e.HOME, env: e, stdin: payload });
    const code = await main(['node', BIN, 'agent', 'hook', '--for', 'claude-code'], ctx);
    expect([code, ctx.out()]).toEqual([0, fast.stdout]);
  });

  it('fails open when it cannot tell who is calling', async () => {
    const r = await sparehand(['agent', 'hook', '--for', 'no-such-tool'], { input: payload, env: env() });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  it('fails open on a bad config file, and says why in its log', async () => {
    const e = env();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(`${e.HOME}/.config/sparehand`, { recursive: true });
    writeFileSync(`${e.HOME}/.config/sparehand/config.json`, '{ not json');
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: payload, env: e });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(readFileSync(`${e.HOME}/.local/state/sparehand/hook.log`, 'utf8')).toContain('config.json is not valid JSON');
  });
});
