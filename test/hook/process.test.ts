// The hook as the coding tools run it: a real process through bin/sparehand.js and the bundled entry.
import { readFileSync, realpathSync } from 'node:fs';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';

const payload = readFileSync(`${FIXTURES}agents/claude-code/payload.json`, 'utf8');
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
          command: `${invocation} run --or-local --timeout 399s -- 'npm test'`,
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

  it('on a bad config file goes by the built-in defaults (never turned off in silence), and says why in its log', async () => {
    const e = env();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(`${e.HOME}/.config/sparehand`, { recursive: true });
    writeFileSync(`${e.HOME}/.config/sparehand/config.json`, '{ not json');
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: payload, env: e });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('sparehand');
    expect(readFileSync(`${e.HOME}/.local/state/sparehand/hook.log`, 'utf8')).toContain('config.json:1:3: not valid JSON');
  });
});

describe('sparehand agent hook reads stdin as the tools write it', () => {
  /** The hook with stdin left open after `text` (a tool that keeps its end of the pipe): its answer and how long. */
  async function keptOpen(text: string, args = ['agent', 'hook', '--for', 'claude-code']) {
    const { execa } = await import('execa');
    const t0 = performance.now();
    const child = execa(process.execPath, [BIN, ...args], { env: env(), extendEnv: false, reject: false, stdin: 'pipe' });
    child.stdin!.write(text);
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const r = await child;
    clearTimeout(killer);
    child.stdin!.destroy();
    return { ...r, ms: performance.now() - t0 };
  }

  it('answers as soon as it has one whole JSON document, though the pipe stays open', async () => {
    const r = await keptOpen(payload);
    expect([r.exitCode, JSON.parse(r.stdout).hookSpecificOutput.updatedInput.command]).toEqual([
      0,
      expect.stringContaining("run --or-local --timeout 399s -- 'npm test'"),
    ]);
    expect(r.ms).toBeLessThan(3000);
  });

  it('gives up after 5 s on a payload that never ends, leaving the command alone', async () => {
    const r = await keptOpen(payload.slice(0, 60));
    expect([r.exitCode, r.stdout, r.stderr, r.signal]).toEqual([0, '', '', undefined]);
    expect(r.ms).toBeGreaterThan(4500);
    expect(r.ms).toBeLessThan(9000);
  });

  it('reads exactly one JSON document: what follows it (another document, or the start of one) is not waited for', async () => {
    const r = await keptOpen(`${payload}\n{"hook_event_name":"PostToolUse","tool_input":{"command":"ls"`);
    expect([r.exitCode, JSON.parse(r.stdout).hookSpecificOutput.updatedInput.command]).toEqual([
      0,
      expect.stringContaining("run --or-local --timeout 399s -- 'npm test'"),
    ]);
    expect(r.ms).toBeLessThan(3000);
  });

  it('gives up after 5 s when nothing at all is written and the pipe stays open (a socket, as Node starts hooks)', async () => {
    const r = await keptOpen('');
    expect([r.exitCode, r.stdout, r.stderr, r.signal]).toEqual([0, '', '', undefined]);
    expect(r.ms).toBeGreaterThan(4500);
    expect(r.ms).toBeLessThan(9000);
  });

  it('leaves at once what does not start as a JSON document, though the pipe stays open', async () => {
    const r = await keptOpen('npm test\n');
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(r.ms).toBeLessThan(3000);
  });

  it.each([
    ['a whole payload is answered at once', payload, 'rewritten', 0, 3000],
    ['a payload and then more is answered at once', `${payload}\n{"next":`, 'rewritten', 0, 3000],
    ['a payload cut short is given up on after 5 s', payload.slice(0, 60), 'left alone', 4500, 8000],
  ])('through a shell pipe (a FIFO) that stays open: %s', async (_what, text, want, least, most) => {
    const { execa } = await import('execa');
    // The group on the right times the hook alone (the pipeline itself lasts as long as the sleep).
    const script =
      '(printf %s "$P"; sleep 9) | { t=$(date +%s%N); "$NODE" "$BIN" agent hook --for claude-code; s=$?; echo "$s $(( ($(date +%s%N) - t) / 1000000 ))" >&2; }';
    const r = await execa('bash', ['-c', script], { env: { ...env(), P: text, NODE: process.execPath, BIN }, extendEnv: false, reject: false });
    const [status, ms] = r.stderr.trim().split(' ').map(Number);
    expect([status, r.stdout === '' ? 'left alone' : 'rewritten']).toEqual([0, want]);
    expect(ms).toBeGreaterThanOrEqual(least);
    expect(ms).toBeLessThan(most);
  });

  it('`agent hook --help` prints the help and does not wait for a payload', async () => {
    const r = await keptOpen('', ['agent', 'hook', '--help']);
    expect([r.exitCode, r.stdout]).toEqual([0, expect.stringContaining('Usage: sparehand agent hook')]);
    expect(r.ms).toBeLessThan(3000);
  });

  it('a FIFO as the config file does not hang it: it goes by the defaults and says why in its log', async () => {
    const e = env();
    const { execFileSync } = await import('node:child_process');
    const fifo = `${e.HOME}/config.fifo`;
    execFileSync('mkfifo', [fifo]);
    const t0 = performance.now();
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { input: payload, env: { ...e, SPAREHAND_CONFIG: fifo } });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('sparehand');
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(readFileSync(`${e.HOME}/.local/state/sparehand/hook.log`, 'utf8')).toContain('config.fifo is not a regular file');
  });
});

describe('the hook fails open in one place, and logs there', () => {
  it('an error in the full path leaves the command alone, with a line in the log naming it', async () => {
    const { hookMain } = await import('../../lib/hook/main.js');
    const { testContext } = await import('../helpers/context.js');
    const ctx = testContext({ stdin: payload });
    const code = await hookMain(ctx, 'claude-code', {
      full: () => {
        throw new TypeError('a bug in the classifier');
      },
      leave: () => '',
    });
    expect([code, ctx.out(), ctx.err()]).toEqual([0, '', '']);
    expect(readFileSync(`${ctx.home}/.local/state/sparehand/hook.log`, 'utf8')).toContain(
      'claude-code: internal error, left alone: TypeError: a bug in the classifier',
    );
  });
});
