// The command line's edge: exit statuses mapped in one place, usage errors in one line that says what to type,
// help with examples and topics, and one error type recognised across bundles.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSparehandError } from '../lib/errors.js';
import { sparehand } from './helpers/cli.js';
import { tempDir } from './helpers/context.js';

const env = () => ({ HOME: tempDir('sparehand-home-'), PATH: process.env.PATH! });
const lines = (s: string) => s.split('\n').filter(Boolean);

describe('exit statuses', () => {
  it.each([
    ['worker add with a port that is not a number', ['worker', 'add', 'w', 'h', '--port', 'abc'], 2],
    ['an unknown tool', ['agent', 'install', 'nope'], 2],
    ['an unknown option of agent list', ['agent', 'list', '--bogus'], 2],
    ['an unknown command', ['wrok'], 2],
    ['removing a worker that does not exist', ['worker', 'remove', 'nope'], 2],
    ['run with an unknown option (run is a wrapper: 125, as docker run)', ['run', '--bogus', '--', 'true'], 125],
    ['run with an unknown worker', ['run', '--worker', 'nope', '--', 'true'], 125],
  ])('%s', async (_what, args, status) => {
    const r = await sparehand(args, { env: env() });
    expect([r.exitCode, r.stdout]).toEqual([status, '']);
    expect(r.stderr).toMatch(/^sparehand: /);
  });

  it('a usage error is one line, never the whole help', async () => {
    const r = await sparehand(['worker', 'add', 'w', 'h', '--port', 'abc'], { env: env() });
    expect(lines(r.stderr)).toEqual(["sparehand: option '--port <n>' argument 'abc' is invalid. expected a whole number; see `sparehand help worker add`"]);
  });
});

describe('sparehand run: what to type instead', () => {
  it('`run ls -la`: one line saying to put -- before the command', async () => {
    const r = await sparehand(['run', 'ls', '-la'], { env: env() });
    expect([r.exitCode, lines(r.stderr)]).toEqual([125, ["sparehand: unknown option '-la': put `--` before the command: sparehand run -- ls -la"]]);
  });

  it("keeps sparehand's own options before the --", async () => {
    const r = await sparehand(['run', '--or-local', '--timeout', '5m', 'npm', 'test', '--coverage'], { env: env() });
    expect(lines(r.stderr)).toEqual([
      "sparehand: unknown option '--coverage': put `--` before the command: sparehand run --or-local --timeout 5m -- npm test --coverage",
    ]);
  });

  it("a mistyped option of its own before -- gets commander's suggestion, not the -- hint", async () => {
    const r = await sparehand(['run', '--or-locl', '--', 'true'], { env: env() });
    expect(r.exitCode).toBe(125);
    expect(lines(r.stderr)).toEqual(["sparehand: unknown option '--or-locl' (Did you mean --or-local?); see `sparehand help run`"]);
  });

  it.each([
    ['an empty command', ['run', '--or-local', '--', ''], 'the command is empty'],
    ['a blank command', ['run', '--or-local', '--', '  '], 'the command is empty'],
    ['--timeout 0', ['run', '--or-local', '--timeout', '0', '--', 'true'], "option '--timeout <dur>' argument '0' is invalid. must be more than 0"],
    ['--timeout 0s', ['run', '--or-local', '--timeout', '0s', '--', 'true'], 'must be more than 0'],
    ['a bad duration', ['run', '--or-local', '--timeout', 'soon', '--', 'true'], 'bad duration "soon"'],
  ])('refuses %s as a usage error (125 under run), and runs nothing', async (_what, args, message) => {
    const r = await sparehand(args, { env: env() });
    expect([r.exitCode, r.stdout]).toEqual([125, '']);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('running locally');
  });
});

describe('help', () => {
  it('bare `sparehand` prints the help on stdout and exits 0', async () => {
    const r = await sparehand([], { env: env() });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^Usage: sparehand \[options\] \[command\]/);
  });

  it.each([['worker'], ['agent']])('`sparehand %s` without a subcommand prints its help, exit 2, no internal code', async (group) => {
    const r = await sparehand([group], { env: env() });
    expect([r.exitCode, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(new RegExp(`^Usage: sparehand ${group} \\[options\\] \\[command\\]`));
    expect(r.stderr).not.toContain('outputHelp');
    expect(r.stderr).not.toMatch(/^sparehand: /m);
  });

  it('--help shows examples', async () => {
    const r = await sparehand(['--help'], { env: env() });
    expect(r.stdout).toContain('Examples:\n  sparehand run --or-local -- npm test');
  });

  it('run --help says to put -- before the command and what the exit statuses are', async () => {
    const r = await sparehand(['run', '--help'], { env: env() });
    expect(r.stdout).toContain('Put `--` before the command');
    expect(r.stdout).toMatch(/Exit status: the command's own; 124 after --timeout; 128\+N .*255 .*125/s);
  });

  it("`help worker add` shows worker add's help, at any depth", async () => {
    const r = await sparehand(['help', 'worker', 'add'], { env: env() });
    expect([r.exitCode, r.stdout]).toEqual([0, expect.stringMatching(/^Usage: sparehand worker add \[options\] <name> \[destination\]/)]);
    const s = await sparehand(['help', 'agent', 'install'], { env: env() });
    expect(s.stdout).toMatch(/^Usage: sparehand agent install/);
  });

  it('`help config` prints the shipped docs/config.md; an unknown topic lists the topics', async () => {
    const r = await sparehand(['help', 'config'], { env: env() });
    expect(r.stdout).toBe(readFileSync(new URL('../docs/config.md', import.meta.url), 'utf8'));
    const u = await sparehand(['help', 'nope'], { env: env() });
    expect(u.exitCode).toBe(2);
    expect(u.stderr).toContain('topics: agents, classify.md, config');
  });

  it('every topic `help` lists can be reached as listed: `help run` is the command, `help run.md` its document', async () => {
    const h = await sparehand(['help', '--help'], { env: env() });
    const listed = /Topics: (.*)/.exec(h.stdout)![1]!.split(', ');
    expect(listed).toContain('run.md');
    expect(listed).toContain('classify.md');
    for (const topic of listed) {
      const r = await sparehand(['help', topic], { env: env() });
      expect(r.stdout, topic).toBe(readFileSync(new URL(`../docs/${topic.replace(/\.md$/, '')}.md`, import.meta.url), 'utf8'));
    }
    const cmd = await sparehand(['help', 'run'], { env: env() });
    expect(cmd.stdout).toMatch(/^Usage: sparehand run/);
    expect(cmd.stdout).toContain('The whole story: `sparehand help run.md`');
  });

  it('every `sparehand help TOPIC` a message names is a topic, and no message names a docs/ file', () => {
    const topics = readdirSync(new URL('../docs/', import.meta.url)).map((f) => f.replace(/\.md$/, ''));
    const src = (dir: URL): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? src(new URL(`${d.name}/`, dir)) : d.name.endsWith('.ts') ? [readFileSync(new URL(d.name, dir), 'utf8')] : [],
      );
    const code = src(new URL('../lib/', import.meta.url)).map((t) => t.replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, ''));
    const named = code.flatMap((t) => [...t.matchAll(/sparehand help ([a-z-]+)/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(2);
    const commands = ['run', 'worker', 'agent', 'classify', 'doctor', 'help'];
    expect(named.filter((n) => !topics.includes(n) && !commands.includes(n))).toEqual([]);
    // Hints are read wherever sparehand was installed: a path into the repository means nothing there.
    const hints = code.flatMap((t) => [...t.matchAll(/hint: [^\n]*/g)].map((m) => m[0]));
    expect(hints.filter((h) => /docs\/[a-z-]+\.md/.test(h))).toEqual([]);
  });
});

describe('one error type across bundles', () => {
  it('an error made by another copy of the class (another bundle) is recognised by its brand', async () => {
    // @ts-expect-error a second instance of the module, as a second bundle carries
    const copy = (await import('../lib/errors.js?copy')) as typeof import('../lib/errors.js');
    const e = new copy.SparehandError('USAGE', 'from another bundle');
    expect(e instanceof (await import('../lib/errors.js')).SparehandError).toBe(false);
    expect(isSparehandError(e)).toBe(true);
    expect(isSparehandError(new Error('plain'))).toBe(false);
    expect(isSparehandError({ code: 'USAGE', message: 'look-alike' })).toBe(false);
  });
});
