// Killing install (SIGKILL) at any moment never leaves a truncated settings file: it is the old or the new one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

it('SIGKILL in the middle of install/uninstall leaves the old or the new settings, parseable', async () => {
  const home = tempDir('sparehand-home-');
  const env = { HOME: home, PATH: process.env.PATH! };
  const file = join(home, '.claude', 'settings.json');
  mkdirSync(join(home, '.claude'));
  // A large file (about 1.5 MB) so that writing it takes a while.
  const big: Record<string, unknown> = { hooks: { PreToolUse: [] } };
  for (let i = 0; i < 15_000; i++) big[`user-key-${i}`] = { note: 'x'.repeat(64), i };
  writeFileSync(file, JSON.stringify(big, null, 2));
  const without = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const t0 = performance.now();
  expect((await sparehand(['agent', 'install', 'claude-code'], { env })).exitCode).toBe(0);
  // How long one install takes on this machine: the kills land at random moments within that window.
  const window = performance.now() - t0;
  const withHook = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  expect(withHook).not.toEqual(without);

  let killed = 0;
  for (let i = 0; i < 12; i++) {
    const verb = i % 2 === 0 ? 'uninstall' : 'install';
    const child = execa(process.execPath, [BIN, 'agent', verb, 'claude-code'], { env, extendEnv: false, reject: false });
    setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * window));
    const r = await child;
    if (r.signal === 'SIGKILL') killed++;
    const now = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    expect([now].filter((v) => JSON.stringify(v) === JSON.stringify(without) || JSON.stringify(v) === JSON.stringify(withHook))).toHaveLength(1);
  }
  // The test only means something if most runs were really cut short.
  expect(killed).toBeGreaterThan(3);
});
