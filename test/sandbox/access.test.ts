// `agent install TOOL --sandbox-access`: the smallest widening of the tool's sandbox (sparehand's folders, the
// configured workers' host:port), merged into the user's settings, idempotent, refused on a file that does not parse,
// and taken back byte for byte by `agent uninstall`; without the flag nothing is widened and install says what blocks.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tree } from '../helpers/tree.js';

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * A HOME with sparehand's config, outside /tmp as users' are (a sandbox that leaves /tmp writable would otherwise
 * need no widening for sparehand's folders in it).
 */
function homeWith(config: unknown): { home: string; env: { HOME: string; PATH: string } } {
  const home = mkdtempSync(join('/var/tmp', 'sparehand-home-'));
  write(join(home, '.config', 'sparehand', 'config.json'), JSON.stringify(config, null, 2));
  return { home, env: { HOME: home, PATH: process.env.PATH! } };
}

const WORKERS = {
  workers: [
    { name: 'box', destination: 'me@192.168.1.7' },
    { name: 'big', destination: 'me@10.0.0.9', port: 2222 },
  ],
};

describe('agent install codex --sandbox-access', () => {
  const userToml =
    '# mine\nmodel = "gpt-5.5"\n\n[sandbox_workspace_write]\nwritable_roots = ["/opt/cache"] # my cache\nnetwork_access = false\n\n[features]\nhooks = true\n';

  it("adds sparehand's folders to writable_roots and opens the network, keeping the rest; uninstall gives back the file", async () => {
    const { home, env } = homeWith(WORKERS);
    const file = join(home, '.codex', 'config.toml');
    write(file, userToml);
    const before = tree(home);
    const r = await sparehand(['agent', 'install', 'codex', '--sandbox-access'], { env });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const cache = join(home, '.cache', 'sparehand');
    const state = join(home, '.local', 'state', 'sparehand');
    expect(readFileSync(file, 'utf8')).toBe(
      `# mine\nmodel = "gpt-5.5"\n\n[sandbox_workspace_write]\nwritable_roots = ["/opt/cache", "${cache}", "${state}"] # my cache\nnetwork_access = true\n\n[features]\nhooks = true\n`,
    );
    expect(r.stdout).toContain(
      `  sandbox: widened Codex's sandbox in ~/.codex/config.toml: [sandbox_workspace_write] writable_roots += "${cache}", "${state}", [sandbox_workspace_write] network_access = true; then start Codex again\n`,
    );
    expect(r.stdout).toContain(
      "  note: [sandbox_workspace_write] network_access = true opens the whole network to every command in Codex's sandbox: it has no setting for one host\n",
    );
    const again = await sparehand(['agent', 'install', 'codex', '--sandbox-access'], { env });
    expect(again.stdout).toContain("  sandbox: ~/.codex/config.toml already lets a run inside Codex's sandbox offload (unchanged)\n");
    const undo = await sparehand(['agent', 'uninstall', 'codex'], { env });
    expect(undo.stdout).toBe(
      'codex: hook removed from ~/.codex/hooks.json; note removed from ~/.codex/AGENTS.md; sandbox widening removed from ~/.codex/config.toml\n',
    );
    expect(tree(home)).toEqual(before);
  });

  it('in a config without the table: adds it, and uninstall removes exactly it', async () => {
    const { home, env } = homeWith(WORKERS);
    const file = join(home, '.codex', 'config.toml');
    write(file, 'model = "gpt-5.5"\n');
    const before = tree(home);
    await sparehand(['agent', 'install', 'codex', '--sandbox-access'], { env });
    expect(readFileSync(file, 'utf8')).toBe(
      `model = "gpt-5.5"\n\n[sandbox_workspace_write]\nwritable_roots = ["${join(home, '.cache', 'sparehand')}", "${join(home, '.local', 'state', 'sparehand')}"]\nnetwork_access = true\n`,
    );
    await sparehand(['agent', 'uninstall', 'codex'], { env });
    expect(tree(home)).toEqual(before);
  });

  it('refuses a config.toml that does not parse, leaving it as it was', async () => {
    const { home, env } = homeWith(WORKERS);
    const file = join(home, '.codex', 'config.toml');
    write(file, 'model = \n');
    const r = await sparehand(['agent', 'install', 'codex', '--sandbox-access'], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`cannot parse ${file}`);
    expect(readFileSync(file, 'utf8')).toBe('model = \n');
  });

  it('without the flag widens nothing and says what the sandbox blocks', async () => {
    const { home, env } = homeWith(WORKERS);
    write(join(home, '.codex', 'config.toml'), 'sandbox_mode = "workspace-write"\n');
    const r = await sparehand(['agent', 'install', 'codex'], { env });
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toBe('sandbox_mode = "workspace-write"\n');
    expect(r.stdout).toContain(
      `  sandbox: Codex's sandbox is on (sandbox_mode = "workspace-write" in ~/.codex/config.toml): the network is cut ([sandbox_workspace_write] network_access is not true); ~/.cache/sparehand is not writable`,
    );
    expect(r.stdout).toContain('  then, to let them offload from inside it: sparehand agent install codex --sandbox-access\n');
  });

  it("with --project: refused (the widening is the user's, not a project's)", async () => {
    const { env } = homeWith(WORKERS);
    const r = await sparehand(['agent', 'install', 'codex', '--sandbox-access', '--project', '.'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--sandbox-access widens the tool's sandbox in your user settings");
  });
});

describe('agent install claude-code --sandbox-access', () => {
  it("adds the folders to allowWrite and each worker's host:port to allowedDomains; only the workers' hosts", async () => {
    const { home, env } = homeWith(WORKERS);
    const file = join(home, '.claude', 'settings.json');
    write(file, `${JSON.stringify({ model: 'opus', sandbox: { enabled: true, network: { allowedDomains: ['github.com', '10.0.0.9:2222'] } } }, null, 2)}\n`);
    const before = tree(home);
    const r = await sparehand(['agent', 'install', 'claude-code', '--sandbox-access'], { env });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    expect(settings.sandbox).toEqual({
      enabled: true,
      network: { allowedDomains: ['github.com', '10.0.0.9:2222', '192.168.1.7:22'] },
      filesystem: { allowWrite: [join(home, '.cache', 'sparehand'), join(home, '.local', 'state', 'sparehand')] },
    });
    expect(settings.model).toBe('opus');
    // A worker removed from the config: its host goes from the list at the next install (it was sparehand's).
    write(join(home, '.config', 'sparehand', 'config.json'), JSON.stringify({ workers: [WORKERS.workers[1]] }));
    await sparehand(['agent', 'install', 'claude-code', '--sandbox-access'], { env });
    expect(JSON.parse(readFileSync(file, 'utf8')).sandbox.network.allowedDomains).toEqual(['github.com', '10.0.0.9:2222']);
    await sparehand(['agent', 'uninstall', 'claude-code'], { env });
    write(join(home, '.config', 'sparehand', 'config.json'), JSON.stringify(WORKERS, null, 2));
    expect(tree(home)).toEqual(before);
  });

  it('a settings file install created goes with uninstall; nothing is left', async () => {
    const { home, env } = homeWith(WORKERS);
    const before = tree(home, { dirs: true });
    await sparehand(['agent', 'install', 'claude-code', '--sandbox-access'], { env });
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(true);
    await sparehand(['agent', 'uninstall', 'claude-code'], { env });
    expect(tree(home, { dirs: true })).toEqual(before);
    expect(existsSync(join(home, '.claude'))).toBe(false);
  });

  it('--dry-run prints the widening and writes nothing', async () => {
    const { home, env } = homeWith(WORKERS);
    const before = tree(home);
    const r = await sparehand(['agent', 'install', 'claude-code', '--sandbox-access', '--dry-run'], { env });
    expect(r.stdout).toContain('+        "allowedDomains": [');
    expect(r.stdout).toContain("  sandbox: would widen Claude Code's sandbox in ~/.claude/settings.json");
    expect(tree(home)).toEqual(before);
  });
});

describe('agent status and doctor: the sandbox of each tool', () => {
  it('says whether it is on, where, and whether a run inside it offloads (and why not)', async () => {
    // Workers that refuse at once (doctor checks them too).
    const { home, env } = homeWith({
      workers: [
        { name: 'box', destination: 'me@127.0.0.1', port: 1 },
        { name: 'big', destination: 'me@127.0.0.1', port: 9 },
      ],
    });
    write(join(home, '.claude', 'settings.json'), '{"sandbox": {"enabled": true}}\n');
    await sparehand(['agent', 'install', 'claude-code'], { env });
    const status = await sparehand(['agent', 'status'], { env, cwd: home });
    const line = status.stdout.split('\n').find((l) => l.startsWith('  sandbox:  Claude Code'));
    expect(line).toBe(
      `  sandbox:  Claude Code's sandbox: on (sandbox.enabled = true in ~/.claude/settings.json); a run inside it runs here: box (127.0.0.1:1) is not in sandbox.network.allowedDomains; big (127.0.0.1:9) is not in sandbox.network.allowedDomains; ~/.cache/sparehand is not writable (not in sandbox.filesystem.allowWrite); ~/.local/state/sparehand is not writable (not in sandbox.filesystem.allowWrite); to offload: run \`sparehand agent install claude-code --sandbox-access\` (sets sandbox.filesystem.allowWrite += "${join(home, '.cache', 'sparehand')}", "${join(home, '.local', 'state', 'sparehand')}", sandbox.network.allowedDomains += "127.0.0.1:1", "127.0.0.1:9" in ${join(home, '.claude', 'settings.json')})`,
    );
    await sparehand(['agent', 'install', 'claude-code', '--sandbox-access'], { env });
    const json = JSON.parse((await sparehand(['agent', 'status', '--json'], { env, cwd: home })).stdout);
    expect(json.agents.find((a: { id: string }) => a.id === 'claude-code').sandbox).toEqual({
      name: "Claude Code's sandbox",
      checked: 'real program',
      on: true,
      why: 'sandbox.enabled = true in ~/.claude/settings.json',
      offloads: true,
      blocks: [],
      widened: true,
    });
    const doctor = await sparehand(['doctor'], { env, cwd: home });
    expect(doctor.stdout).toContain(
      "ok  sandbox: claude-code: Claude Code's sandbox: on (sandbox.enabled = true in ~/.claude/settings.json); a run inside it reaches the workers and writes sparehand's folders (widened by --sandbox-access)\n",
    );
    // A worker added since: the widening no longer covers it, and doctor says so as a problem.
    write(join(home, '.config', 'sparehand', 'config.json'), JSON.stringify({ workers: [{ name: 'new', destination: 'me@127.0.0.1', port: 7 }] }));
    const stale = await sparehand(['doctor'], { env, cwd: home });
    expect(stale.stdout).toMatch(
      /^BAD sandbox: claude-code: .*new \(127\.0\.0\.1:7\) is not in sandbox\.network\.allowedDomains.*allowedDomains \+= "127\.0\.0\.1:7"/m,
    );
  });
});
