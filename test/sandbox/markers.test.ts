// A run that knows which sandbox it is in, from the variables the tools give their commands (the registry's markers):
// no time lost on a network the sandbox cut, and no command run outside a sandbox the user turned on.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxHere } from '../../lib/sandbox/here.js';
import { sparehand } from '../helpers/cli.js';
import { homeWith } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';

/** A TCP port that accepts connections and never says a word (ssh would wait out its connect timeout). */
async function silentPort(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const held: import('node:net').Socket[] = [];
  const server = createServer((s) => {
    n++;
    held.push(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => n,
    close: () =>
      new Promise((r) => {
        for (const s of held) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('which sandbox a command runs in', () => {
  it("is told by the tools' own variables; the tool whose command it is wins where two share an engine", () => {
    expect(sandboxHere({ CODEX_SANDBOX_NETWORK_DISABLED: '1', CODEX_THREAD_ID: 't' })).toMatchObject({ agent: { id: 'codex' }, by: 'marker', network: 'cut' });
    expect(sandboxHere({ SANDBOX_RUNTIME: '1', CLAUDECODE: '1' })).toMatchObject({ agent: { id: 'claude-code' }, by: 'marker', network: 'proxy' });
    expect(sandboxHere({ CLAUDECODE: '1' })).toMatchObject({ agent: { id: 'claude-code' }, by: 'agent' });
    expect(sandboxHere({ PATH: '/usr/bin' })).toBeUndefined();
  });
});

describe('sparehand run in a sandbox with no network', () => {
  it('runs here at once (no connection tried, no timeout waited), naming the sandbox and the setting', async () => {
    const silent = await silentPort();
    const { home, env } = homeWith({ workers: [{ name: 'box', destination: 'me@127.0.0.1', port: silent.port }] });
    const project = gitProject({ 'a.txt': 'a\n' });
    const started = Date.now();
    const r = await sparehand(['run', '--or-local', '--', 'cat a.txt; exit 3'], {
      env: { ...env, CODEX_SANDBOX_NETWORK_DISABLED: '1', CODEX_THREAD_ID: 't' },
      cwd: project,
    });
    expect([r.exitCode, r.stdout]).toEqual([3, 'a\n']);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(silent.connections()).toBe(0);
    // This HOME is under /tmp, which Codex's sandbox leaves writable: only the network needs opening.
    expect(r.stderr).toBe(
      `sparehand: running locally: Codex's sandbox cuts the network, so no worker can be reached from inside it; to let sparehand offload from it: run \`sparehand agent install codex --sandbox-access\` (sets [sandbox_workspace_write] network_access = true in ${join(home, '.codex', 'config.toml')}, then start Codex again)\n`,
    );
    await silent.close();
  });

  it('without --or-local: 125 with the same reason', async () => {
    const { env } = homeWith({ workers: [{ name: 'box', destination: 'me@127.0.0.1', port: 1 }] });
    const r = await sparehand(['run', '--', 'true'], { env: { ...env, CODEX_SANDBOX_NETWORK_DISABLED: '1' }, cwd: gitProject({}) });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toMatch(/^sparehand: Codex's sandbox cuts the network/);
  });
});

describe('sparehand let out of the sandbox the user turned on', () => {
  /** A HOME whose Claude Code settings turn its sandbox on (or off), with no worker reachable. */
  function claudeHome(enabled: boolean) {
    const h = homeWith({ workers: [{ name: 'box', destination: 'me@127.0.0.1', port: 1 }] });
    mkdirSync(join(h.home, '.claude'), { recursive: true });
    writeFileSync(join(h.home, '.claude', 'settings.json'), JSON.stringify({ sandbox: { enabled } }));
    return h;
  }

  it('does not run the command here, outside it: 125 and the line that lets the agent run it in the sandbox', async () => {
    const { env } = claudeHome(true);
    const project = gitProject({});
    const r = await sparehand(['run', '--or-local', '--', 'touch ran'], { env: { ...env, CLAUDECODE: '1' }, cwd: project });
    expect(r.exitCode).toBe(125);
    expect(existsSync(join(project, 'ran'))).toBe(false);
    expect(r.stderr).toMatch(
      /^sparehand: not running locally \(worker "box" .*\): sparehand runs outside Claude Code's sandbox \(sandbox\.enabled = true in .*\), so it will not run the command here, where the sandbox would not hold it; run it inside the sandbox yourself: SPAREHAND=off touch ran\n$/,
    );
    // The user keeps that sandbox off: it runs here as ever.
    const off = claudeHome(false);
    const here = await sparehand(['run', '--or-local', '--', 'touch ran'], { env: { ...off.env, CLAUDECODE: '1' }, cwd: project });
    expect([here.exitCode, existsSync(join(project, 'ran'))]).toEqual([0, true]);
  });
});
