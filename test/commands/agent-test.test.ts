// `agent test` after `agent install`, as a real process; and the installed commands themselves under a bare PATH.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import type { AgentSpec } from '../../lib/agents/types.js';
import { classify } from '../../lib/classify/index.js';
import { decodeWire } from '../../lib/checks/decode-answer.js';
import type { CheckResult } from '../../lib/checks/hook-check.js';
import { installedCommandsIn } from '../../lib/install/engine.js';
import { toolsFound } from '../helpers/tree.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { noteOnlyAgents } from '../helpers/settings.js';

const hooked = allAgents().filter((a) => a.install.targets.length > 0);
const HEAVY = 'npm test';
// The tests follow the classifier in the tree: while it calls nothing heavy, `agent test` must say so.
const heavyKnown = classify(HEAVY).heavy;

/** A HOME with every tool installed, and a PATH whose `sparehand` is this installation (tools that call it bare). */
async function installedHome() {
  const home = tempDir('sparehand-home-');
  const bin = join(home, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'sparehand'));
  toolsFound(home, hooked);
  const env = { HOME: home, PATH: `${bin}:${process.env.PATH}`, npm_config_update_notifier: 'false' };
  // --trust: Codex runs a hook only once it trusts it; without, agent test says untrusted.
  const r = await sparehand(['agent', 'install', 'all', '--trust'], { env });
  expect(r.exitCode).toBe(0);
  return { home, env };
}

describe('agent test all after agent install all', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ home, env } = await installedHome());
  });

  it('a light command: every tool working and left alone', async () => {
    const r = await sparehand(['agent', 'test', 'all', '--command', 'ls', '--json'], { env, cwd: home });
    const doc = JSON.parse(r.stdout) as { ok: boolean; results: CheckResult[] };
    expect(doc.results.map((x) => [x.agent, x.scope, x.status])).toEqual(hooked.map((a) => [a.id, 'user', 'working']));
    for (const x of doc.results) expect(x.trials).toEqual([{ command: 'ls', outcome: { kind: 'leave' } }]);
    expect(doc.ok).toBe(true);
    expect(r.exitCode).toBe(0);
  });

  it(`the default heavy \`${HEAVY}\`: ${heavyKnown ? 'every tool rewrites or refuses' : 'left alone is reported as broken'}`, async () => {
    const r = await sparehand(['agent', 'test', 'all', '--json'], { env, cwd: home });
    const doc = JSON.parse(r.stdout) as { ok: boolean; results: CheckResult[] };
    expect(doc.results.map((x) => x.agent)).toEqual(hooked.map((a) => a.id));
    for (const x of doc.results) {
      expect(x.trials.map((t) => t.command)).toEqual([HEAVY, 'ls']);
      if (heavyKnown) {
        expect([x.agent, x.status]).toEqual([x.agent, 'working']);
        expect(['rewrite', 'refuse']).toContain(x.trials[0]!.outcome.kind);
      } else {
        expect([x.agent, x.status, x.problem]).toEqual([x.agent, 'broken', `the heavy command \`${HEAVY}\` was left alone`]);
      }
    }
    expect(r.exitCode).toBe(heavyKnown ? 0 : 1);
    // Testing again gives the same answers: the hook's "refuse once per session" memory is not the user's.
    const again = await sparehand(['agent', 'test', 'all', '--json'], { env, cwd: home });
    expect(JSON.parse(again.stdout)).toEqual(doc);
    // Two hook processes per tool (a heavy and a light command), twice: with 25 tools that passed 60 s on a loaded
    // machine (load 14 on two cores).
  }, 180_000);

  it('the human form names each tool, what came back, and the fix', async () => {
    const r = await sparehand(['agent', 'test', 'claude-code', '--command', 'ls'], { env, cwd: home });
    // Which of its two hooks answers, and why: no Claude Code on this PATH, so the settings hook, which every version runs.
    expect(r.stdout).toBe(
      `claude-code (user): working — ${join(home, '.claude', 'settings.json')}\n  answers: the settings hook: claude is not on PATH, so whether it loads a mod is not known\n  ls: left alone\n`,
    );
  });
});

describe('agent test at project level', () => {
  it('tests the hook installed in the current project (its git top level)', async () => {
    const home = tempDir('sparehand-home-');
    const project = join(home, 'app');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, 'src'));
    const env = { HOME: home, PATH: process.env.PATH!, npm_config_update_notifier: 'false' };
    expect((await sparehand(['agent', 'install', 'gemini-cli', '--project', project], { env })).exitCode).toBe(0);
    const r = await sparehand(['agent', 'test', 'gemini-cli', '--command', 'ls', '--json'], { env, cwd: join(project, 'src') });
    const doc = JSON.parse(r.stdout) as { results: CheckResult[] };
    expect(doc.results.map((x) => [x.scope, x.status, x.file])).toEqual([['project', 'working', join(project, '.gemini', 'settings.json')]]);
    expect(r.exitCode).toBe(0);
  });
});

describe('agent test, for a tool connected by a note only', () => {
  const notes = noteOnlyAgents();
  it('there is such a tool (else the tests below run none)', () => {
    expect(notes.length).toBeGreaterThan(0);
  });
  it.each(notes.map((a) => [a.id, a] as const))('%s: broken with the fix before install, the note named after', async (id, a) => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: process.env.PATH! };
    const before = await sparehand(['agent', 'test', id], { env, cwd: home });
    expect([before.exitCode, before.stdout]).toEqual([1, expect.stringContaining(`fix: sparehand agent install ${id}`)]);
    expect((await sparehand(['agent', 'install', id], { env })).exitCode).toBe(0);
    const r = await sparehand(['agent', 'test', id, '--json'], { env, cwd: home });
    const file = a.install.notes!.find((n) => n.scope === 'user')!.path({ home, env });
    expect([r.exitCode, (JSON.parse(r.stdout) as { results: CheckResult[] }).results.map((x) => [x.agent, x.status, x.file])]).toEqual([
      0,
      [[id, 'untestable', file]],
    ]);
  });
});

describe('agent test reports broken connections with the fix', () => {
  it('a tool that is not installed', async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: process.env.PATH! };
    const r = await sparehand(['agent', 'test', 'claude-code'], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toContain('claude-code (user): not installed');
    expect(r.stdout).toContain('fix: sparehand agent install claude-code');
    // The same state under `all`: the same word, and with no tool installed at all the same exit status.
    const all = await sparehand(['agent', 'test', 'all'], { env });
    expect(all.exitCode).toBe(4);
    expect(all.stdout).toContain('claude-code (user): not installed');
  });

  it('Codex installed but not trusted: untrusted (exit 3) under its name and under `all`, working once trusted', async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: process.env.PATH! };
    expect((await sparehand(['agent', 'install', 'codex'], { env })).exitCode).toBe(0);
    for (const tool of ['codex', 'all']) {
      const r = await sparehand(['agent', 'test', tool], { env, cwd: home });
      expect([tool, r.exitCode]).toEqual([tool, 3]);
      expect(r.stdout).toContain(`codex (user): untrusted — ${join(home, '.codex', 'hooks.json')}`);
      expect(r.stdout).toContain('problem: Codex CLI does not trust this hook, so Codex CLI skips it without a word');
      expect(r.stdout).toContain('fix: open Codex, type /hooks');
    }
    expect((await sparehand(['agent', 'install', 'codex', '--trust'], { env })).exitCode).toBe(0);
    const t = await sparehand(['agent', 'test', 'codex'], { env, cwd: home });
    expect([t.exitCode, t.stdout]).toEqual([0, expect.stringContaining('codex (user): working')]);
  });

  it('a stale path (sparehand moved away)', async () => {
    const { home, env } = await installedHome();
    const file = join(home, '.gemini', 'settings.json');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(BIN, '/nowhere/bin/sparehand.js'));
    const r = await sparehand(['agent', 'test', 'gemini-cli', '--command', 'ls'], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('problem: the hook names /nowhere/bin/sparehand.js, which no longer exists');
    expect(r.stdout).toContain('fix: sparehand agent install gemini-cli');
  });

  it(`a tool whose rewrites call the bare \`sparehand\`, with none on PATH`, async () => {
    const bare = hooked.filter((a) => a.sparehandName === 'bare');
    expect(bare.length).toBeGreaterThan(0);
    const home = tempDir('sparehand-home-');
    // An empty PATH folder: a sparehand installed globally on this machine must not count.
    const empty = join(home, 'empty-bin');
    mkdirSync(empty);
    const env = { HOME: home, PATH: empty, npm_config_update_notifier: 'false' };
    for (const a of bare) {
      const i = await sparehand(['agent', 'install', a.id], { env });
      expect(i.stdout).toContain('no `sparehand` is on your PATH');
      const r = await sparehand(['agent', 'test', a.id], { env, cwd: home });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toContain(heavyKnown ? "fix: this tool's rewrites call the bare `sparehand`, which is not on PATH" : 'was left alone');
    }
  });

  it('a hook that prints something that is not an answer', async () => {
    const { home, env } = await installedHome();
    const fake = join(home, 'fake-sparehand.js');
    writeFileSync(fake, 'process.stdout.write("hello, not JSON\\n");\n');
    const file = join(home, '.claude', 'settings.json');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(BIN, fake));
    const r = await sparehand(['agent', 'test', 'claude-code', '--command', 'ls', '--json'], { env });
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout) as { results: CheckResult[] };
    expect(doc.results[0]!.status).toBe('broken');
    expect(doc.results[0]!.trials[0]!.outcome).toEqual({ kind: 'invalid', why: 'stdout is not one JSON document: hello, not JSON' });
  });
});

/** The installed hook's command or file for a tool at user level, read back as `agent test` does. */
function installedHook(
  a: AgentSpec,
  home: string,
): { plugin: boolean; run: (input: string, env: NodeJS.ProcessEnv) => Promise<{ stdout: string; stderr: string; exitCode?: number }> } {
  const base = { home, env: {} };
  const t = a.install.targets.find((x) => x.scope === 'user')!;
  const path = t.path(base);
  const text = readFileSync(path, 'utf8');
  if (t.kind !== 'file') {
    const command = installedCommandsIn(t, path, text)[0]!;
    return { plugin: false, run: (input, env) => execa('/bin/bash', ['-c', command], { input, env, extendEnv: false, reject: false }) };
  }
  if (t.probe) {
    return {
      plugin: true,
      run: (_input, env) => execa(process.execPath, ['--input-type=module', '-e', t.probe!(path, HEAVY, home)], { env, extendEnv: false, reject: false }),
    };
  }
  return { plugin: false, run: (input, env) => execa(path, [], { input, env, extendEnv: false, reject: false }) };
}

describe('the installed commands work with a bare PATH=/usr/bin:/bin', () => {
  let home: string;
  beforeAll(async () => {
    ({ home } = await installedHome());
  });

  it.each(hooked.map((a) => [a.id, a] as const))('%s', async (id, a) => {
    const hook = installedHook(a, home);
    const env = { HOME: home, PATH: '/usr/bin:/bin' };
    const r = await hook.run(JSON.stringify(a.samplePayload?.(HEAVY, home) ?? {}), env);
    if (hook.plugin) {
      expect(['leave', 'rewrite', 'refuse']).toContain((JSON.parse(r.stdout) as { kind: string }).kind);
    } else {
      expect(decodeWire({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode ?? 1 }, HEAVY).kind).not.toBe('invalid');
      // Proof that the hook itself ran (not the guard's silent exit): a payload that is not JSON leaves a log line.
      await hook.run('not json', env);
      expect(readFileSync(join(home, '.local', 'state', 'sparehand', 'hook.log'), 'utf8')).toContain(`${id}: payload is not JSON`);
    }
  });
});
