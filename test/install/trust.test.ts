// `--trust`: the hash Codex computes for a hook, the trust entry in config.toml, and the app-server confirmation.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { codexHookHash } from '../../lib/agents/codex-trust.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

describe('Codex hook hash', () => {
  it('is sha256 of the compact, key-sorted identity of the handler (docs/real-programs.md, fact 3)', () => {
    const command = '"/usr/bin/node" "/opt/sh/bin/sparehand.js" agent hook --for codex';
    const group = { matcher: '^Bash$', hooks: [{ type: 'command', command, timeout: 10 }] };
    const text = `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":10,"type":"command"}],"matcher":"^Bash$"}`;
    expect(codexHookHash(group, 0)).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`);
    // Timeout 600 when unset; no matcher key when unset.
    const bare = `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"x","timeout":600,"type":"command"}]}`;
    expect(codexHookHash({ hooks: [{ type: 'command', command: 'x' }] }, 0)).toBe(`sha256:${createHash('sha256').update(bare).digest('hex')}`);
  });
});

/** A PATH with nothing on it: what this machine has installed globally must not matter. */
const emptyPath = (home: string): string => {
  mkdirSync(join(home, 'empty-bin'), { recursive: true });
  return join(home, 'empty-bin');
};

/** A stand-in `codex` on PATH whose app-server lists hooks with the hash given in FAKE_HASH (or the expected one). */
function fakeCodex(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'codex');
  writeFileSync(
    file,
    `#!/usr/bin/env node
const fs = require('node:fs');
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  let result = {};
  if (m.method === 'hooks/list') {
    const home = process.env.CODEX_HOME || process.env.HOME + '/.codex';
    const path = fs.realpathSync(home + '/hooks.json');
    const groups = JSON.parse(fs.readFileSync(path, 'utf8')).hooks.PreToolUse;
    result = { data: m.params.cwds.map((cwd) => ({ cwd, hooks: groups.map((g, i) => ({ key: path + ':pre_tool_use:' + i + ':0', command: g.hooks[0].command, currentHash: process.env.FAKE_HASH })) })) };
  }
  process.stdout.write(JSON.stringify({ id: m.id, result }) + '\\n');
});
`,
  );
  chmodSync(file, 0o755);
}

describe('agent install codex --trust', () => {
  it("without Codex: writes the computed hash, keeps the user's config, says it is not confirmed; uninstall removes it", async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: emptyPath(home) };
    mkdirSync(join(home, '.codex'));
    const user = '# mine\nmodel = "gpt-5.5" # best\n\n[features]\nhooks = true\n';
    writeFileSync(join(home, '.codex', 'config.toml'), user);
    const r = await sparehand(['agent', 'install', 'codex', '--trust'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('was computed but not confirmed');
    const hooksPath = realpathSync(join(home, '.codex', 'hooks.json'));
    const group = (JSON.parse(readFileSync(hooksPath, 'utf8')) as { hooks: { PreToolUse: Record<string, unknown>[] } }).hooks.PreToolUse[0]!;
    const toml = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
    expect(toml.startsWith(user)).toBe(true);
    expect(parse(toml)).toEqual({
      model: 'gpt-5.5',
      features: { hooks: true },
      hooks: { state: { [`${hooksPath}:pre_tool_use:0:0`]: { trusted_hash: codexHookHash(group, 0) } } },
    });
    const status = JSON.parse((await sparehand(['agent', 'status', '--json'], { env, cwd: home })).stdout) as {
      agents: { id: string; user: { trust?: string } }[];
    };
    expect(status.agents.find((a) => a.id === 'codex')!.user.trust).toBe('trusted');
    expect((await sparehand(['agent', 'install', 'codex', '--trust'], { env })).exitCode).toBe(0);
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toBe(toml);
    expect((await sparehand(['agent', 'uninstall', 'codex'], { env })).exitCode).toBe(0);
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toBe(user);
  });

  it('without --trust: says how to trust it, and status says untrusted', async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: emptyPath(home) };
    const r = await sparehand(['agent', 'install', 'codex'], { env });
    expect(r.stdout).toContain('then: trust the hook: open Codex, type /hooks');
    const status = JSON.parse((await sparehand(['agent', 'status', '--json'], { env, cwd: home })).stdout) as {
      agents: { id: string; user: { trust?: string } }[];
    };
    expect(status.agents.find((a) => a.id === 'codex')!.user.trust).toBe('untrusted');
  });

  it('with Codex on PATH: confirmed by its app-server, or rewritten with the hash it reports', async () => {
    const home = tempDir('sparehand-home-');
    const codexHome = join(home, 'ch');
    fakeCodex(join(home, 'bin'));
    const env = { HOME: home, CODEX_HOME: codexHome, PATH: `${join(home, 'bin')}:/usr/bin:/bin`, FAKE_HASH: 'sha256:reported-by-codex' };
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), 'model = "mine"\n');
    const r = await sparehand(['agent', 'install', 'codex', '--trust'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('reports sha256:reported-by-codex');
    const key = `${realpathSync(join(codexHome, 'hooks.json'))}:pre_tool_use:0:0`;
    expect(parse(readFileSync(join(codexHome, 'config.toml'), 'utf8'))).toEqual({
      model: 'mine',
      hooks: { state: { [key]: { trusted_hash: 'sha256:reported-by-codex' } } },
    });
    // The backup still holds the user's file from before install, not sparehand's first write.
    expect(readFileSync(join(codexHome, 'config.toml.bak'), 'utf8')).toBe('model = "mine"\n');
    // Status asks the program too, so the hash it reported counts as trusted (and another one does not).
    const trustOf = async (e: NodeJS.ProcessEnv) =>
      (
        JSON.parse((await sparehand(['agent', 'status', '--json'], { env: e, cwd: home })).stdout) as { agents: { id: string; user: { trust?: string } }[] }
      ).agents.find((a) => a.id === 'codex')!.user.trust;
    expect(await trustOf(env)).toBe('trusted');
    expect(await trustOf({ ...env, FAKE_HASH: 'sha256:something-else' })).toBe('changed');

    const group = (JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')) as { hooks: { PreToolUse: Record<string, unknown>[] } }).hooks
      .PreToolUse[0]!;
    const home2 = tempDir('sparehand-home-');
    fakeCodex(join(home2, 'bin'));
    const env2 = { HOME: home2, PATH: `${join(home2, 'bin')}:/usr/bin:/bin`, FAKE_HASH: '' };
    // Same command, so the same hash: the fake reports what sparehand computes.
    env2.FAKE_HASH = codexHookHash(group, 0);
    const r2 = await sparehand(['agent', 'install', 'codex', '--trust'], { env: env2 });
    expect(r2.stdout).toContain(`(confirmed by ${join(home2, 'bin', 'codex')})`);
  });
});

describe('a tool is installed whole or not at all', () => {
  it('an unparsable config.toml stops --trust before hooks.json is written', async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: emptyPath(home) };
    mkdirSync(join(home, '.codex'));
    writeFileSync(join(home, '.codex', 'config.toml'), 'model = \n');
    const r = await sparehand(['agent', 'install', 'codex', '--trust'], { env });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(`cannot parse ${join(home, '.codex', 'config.toml')}`);
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toBe('model = \n');
    expect(() => readFileSync(join(home, '.codex', 'hooks.json'))).toThrow();
    expect(() => readFileSync(join(home, '.codex', 'AGENTS.md'))).toThrow();
  });
});
