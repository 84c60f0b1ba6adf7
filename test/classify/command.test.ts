// `sparehand classify` through the real CLI: text and --json output, the config's rules, argv joining, exit 0.
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { homeWith } from '../helpers/context.js';

const env = (config?: unknown) => homeWith(config).env;

describe('sparehand classify', () => {
  it('--json: one document with stable fields, the rewrite naming `sparehand`', async () => {
    const r = await sparehand(['classify', '--json', '--', 'cd pkg && npm test 2>&1 | tail -50'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout as string)).toEqual({
      command: 'cd pkg && npm test 2>&1 | tail -50',
      heavy: true,
      rule: 'heavy: npm test',
      reason: 'npm test runs tests: heavy, so it goes to a worker (or runs here when none is free).',
      rewrite: "cd pkg && sparehand run --or-local -- 'npm test 2>&1' | tail -50",
    });
  });

  it('--json: a split chain names the parts that run here', async () => {
    const r = await sparehand(['classify', '--json', '--', 'cd pkg && npm test && git diff && cd ..'], { env: env() });
    expect(JSON.parse(r.stdout as string)).toEqual({
      command: 'cd pkg && npm test && git diff && cd ..',
      heavy: true,
      rule: 'heavy: npm test',
      reason: 'npm test runs tests: heavy, so it goes to a worker (or runs here when none is free); git diff runs here.',
      rewrite: "cd pkg && sparehand run --or-local -- 'npm test' && git diff && cd ..",
    });
  });

  it('text: the decision, the reason, the rewrite; exit 0 when not heavy too', async () => {
    const heavy = await sparehand(['classify', '--', "CI=1 cargo test -- --nocapture 'a b'"], { env: env() });
    expect(heavy.stdout).toBe(
      "heavy (heavy: cargo test)\ncargo test runs tests: heavy, so it goes to a worker (or runs here when none is free).\nrewrite: sparehand run --or-local -- 'CI=1 cargo test -- --nocapture '\\''a b'\\'''\n",
    );
    const light = await sparehand(['classify', '--', 'npm install'], { env: env() });
    expect({ exit: light.exitCode, out: light.stdout }).toEqual({
      exit: 0,
      out: 'not heavy (local: npm install)\nnpm install installs or changes dependencies on this machine: left alone, it runs here.\n',
    });
  });

  it('several arguments are an argv, quoted and joined as `sparehand run` does', async () => {
    const r = await sparehand(['classify', '--json', '--', 'npm', 'test', '--', '--grep', 'a b'], { env: env() });
    expect(JSON.parse(r.stdout as string)).toMatchObject({
      command: "npm test -- --grep 'a b'",
      heavy: true,
      rewrite: "sparehand run --or-local -- 'npm test -- --grep '\\''a b'\\'''",
    });
  });

  it("uses the config's rules", async () => {
    const e = env({ rules: { heavy: ['npm run e2e'], local: ['npm test'] } });
    const a = await sparehand(['classify', '--json', '--', 'npm run e2e'], { env: e });
    const b = await sparehand(['classify', '--json', '--', 'npm test'], { env: e });
    expect([JSON.parse(a.stdout as string).rule, JSON.parse(b.stdout as string).rule]).toEqual(['heavy (config): npm run e2e', 'local (config): npm test']);
  });

  it('a bad config is an error naming the file (exit 1: 125 is for run)', async () => {
    const e = env({ rules: { heavy: 'npm test' } });
    const r = await sparehand(['classify', '--', 'npm test'], { env: e });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('config.json');
  });
});
