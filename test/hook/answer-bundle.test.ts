// The hook's full path as built (dist/hook-answer.bundle.cjs) loads no zod to answer: the payload's shape is checked by
// hand, and the config is taken from the last check of the same text (lib/config-checked.ts). A config not checked
// before by this build (new, edited, broken, or checked by another schema) is still checked, with zod, as before.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import { answerPayload } from '../../lib/hook/answer.js';
import { homeWith } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';

const BUNDLE = fileURLToPath(new URL('../../dist/hook-answer.bundle.cjs', import.meta.url));

/** zod's mark on the process once its core is loaded. */
const ZOD_MARK = '__zod_globalConfig';

/** One answer from the bundle in a fresh process, for Claude Code running `command`: its stdout, and whether zod loaded. */
async function answer(home: string, command: string): Promise<{ command: string | undefined; zod: boolean; log: string }> {
  const payload = { session_id: 's', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, cwd: home };
  const script = `
    const { answerPayload } = require(${JSON.stringify(BUNDLE)});
    const env = { HOME: ${JSON.stringify(home)}, PATH: '/usr/bin:/bin', SPAREHAND_NO_PROC: '1' };
    Promise.resolve(answerPayload({ home: env.HOME, cwd: env.HOME, env }, 'claude-code', ${JSON.stringify(payload)})).then((a) =>
      process.stdout.write(JSON.stringify({ stdout: a.stdout, zod: ${JSON.stringify(ZOD_MARK)} in globalThis })));`;
  const r = await execa(process.execPath, ['-e', script], { env: {}, extendEnv: false });
  const out = JSON.parse(r.stdout) as { stdout: string; zod: boolean };
  let log = '';
  try {
    log = readFileSync(join(home, '.local', 'state', 'sparehand', 'hook.log'), 'utf8');
  } catch {
    // no log yet
  }
  const rewritten = out.stdout ? (JSON.parse(out.stdout).hookSpecificOutput?.updatedInput?.command as string | undefined) : undefined;
  return { command: rewritten, zod: out.zod, log };
}

describe('the answer bundle loads no zod to answer', () => {
  it('does not even hold it: zod and the schema are a bundle of their own, beside it, required only to check', () => {
    // Held but not run still costs every heavy call its share of the bundle's load (docs/performance.md).
    expect(readFileSync(BUNDLE, 'utf8')).not.toContain(ZOD_MARK);
    expect(readFileSync(join(dirname(BUNDLE), 'config-check.bundle.cjs'), 'utf8')).toContain(ZOD_MARK);
  });

  it('with no config file', async () => {
    const { home } = homeWith();
    const a = await answer(home, 'npm test');
    expect(a.command).toContain("run --or-local --timeout 399s -- 'npm test'");
    expect(a.zod).toBe(false);
  });

  it('with a config it checked before (its rules, and the line naming its unknown field, as when it checked it)', async () => {
    const { home } = homeWith({ rules: { heavy: ['mybuild'] }, myNote: 'x' });
    const first = await answer(home, 'mybuild --all');
    expect([first.command, first.zod]).toEqual([expect.stringContaining("-- 'mybuild --all'"), true]);
    expect(first.log).toContain('unknown field myNote');
    const again = await answer(home, 'mybuild --all');
    expect([again.command, again.zod]).toEqual([first.command, false]);
    expect(again.log.split('unknown field myNote').length).toBe(3);
  });

  it('but checks a config edited since (broken: the last good one, and the line naming the problem)', async () => {
    const { home, file } = homeWith({ rules: { heavy: ['mybuild'] } });
    await answer(home, 'mybuild');
    writeFileSync(file, JSON.stringify({ rules: { heavy: ['mybuild'] }, local: { nice: 99 } }));
    const a = await answer(home, 'mybuild');
    expect([a.command, a.zod]).toEqual([expect.stringContaining("-- 'mybuild'"), true]);
    expect(a.log).toContain('local.nice: a whole number from 0 to 19');
    // Still broken: checked again each time (and said each time), never taken as checked.
    expect((await answer(home, 'mybuild')).zod).toBe(true);
  });

  it('and a kept check that is not one (a mangled cache file): checked again', async () => {
    const { home } = homeWith({ rules: { heavy: ['mybuild'] } });
    await answer(home, 'mybuild');
    const kept = join(home, '.cache', 'sparehand', 'config.last-good.json');
    const record = JSON.parse(readFileSync(kept, 'utf8'));
    writeFileSync(kept, JSON.stringify({ ...record, checked: { ...record.checked, config: null } }));
    const a = await answer(home, 'mybuild');
    expect([a.command, a.zod]).toEqual([expect.stringContaining("-- 'mybuild'"), true]);
  });

  it('and a config checked by another build’s schema', async () => {
    const { home } = homeWith({ rules: { heavy: ['mybuild'] } });
    await answer(home, 'mybuild');
    const kept = join(home, '.cache', 'sparehand', 'config.last-good.json');
    const record = JSON.parse(readFileSync(kept, 'utf8'));
    writeFileSync(kept, JSON.stringify({ ...record, checked: { ...record.checked, by: 'another-schema', config: {} } }));
    const a = await answer(home, 'mybuild');
    expect([a.command, a.zod]).toEqual([expect.stringContaining("-- 'mybuild'"), true]);
    expect((await answer(home, 'mybuild')).zod).toBe(false);
  });
});

describe('the answer bundle answers as the source does, with no zod', () => {
  it("holds none of what only the CLI reads of each tool's spec (its install, its facts for the docs)", () => {
    const bundle = readFileSync(BUNDLE, 'utf8');
    for (const a of allAgents()) {
      expect(bundle, a.id).not.toContain(JSON.stringify(a.why));
      for (const s of a.facts.sources) expect(bundle, a.id).not.toContain(s.url);
    }
  });

  it("every tool's payload, heavy and light, with and without a config", async () => {
    const calls = allAgents()
      .filter((a) => a.payload !== undefined)
      .flatMap((a) => {
        const text = readFileSync(`${FIXTURES}agents/${a.id}/payload.json`, 'utf8');
        return ['npm test', 'ls -la', 'mybuild'].map((command) => ({ agent: a.id, raw: JSON.parse(text.replaceAll('npm test', command)) }));
      });
    for (const config of [undefined, { rules: { heavy: ['mybuild'], local: ['npm test'] } }]) {
      // A home each: a redirect tool lets through a command it refused before in the same session (its own state).
      const { home } = homeWith(config);
      const source = homeWith(config).home;
      const env = { HOME: home, PATH: '/usr/bin:/bin', SPAREHAND_NO_PROC: '1' };
      const script = `
        const { answerPayload } = require(${JSON.stringify(BUNDLE)});
        const env = ${JSON.stringify(env)};
        (async () => {
          const out = [];
          for (const c of ${JSON.stringify(calls)}) out.push(await answerPayload({ home: env.HOME, cwd: env.HOME, env }, c.agent, c.raw));
          process.stdout.write(JSON.stringify({ out, zod: ${JSON.stringify(ZOD_MARK)} in globalThis }));
        })();`;
      // Twice: the second time the config is the one checked before.
      for (let round = 0; round < 2; round++) {
        const r = await execa(process.execPath, ['-e', script], { env: {}, extendEnv: false });
        const fromSource = [];
        for (const c of calls) fromSource.push(await answerPayload({ home: source, cwd: home, env: { ...env, HOME: source } }, c.agent, c.raw));
        const bundled = JSON.parse(r.stdout) as { out: unknown[]; zod: boolean };
        // zod only to check a config the first time.
        expect(bundled.zod).toBe(config !== undefined && round === 0);
        expect(bundled.out).toEqual(fromSource);
      }
    }
  });
});
