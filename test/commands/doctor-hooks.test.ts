// `sparehand doctor` runs every installed hook the way its tool would and names a broken one with the fix.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

describe('sparehand doctor: installed hooks', () => {
  it('reports a working hook, then a hook whose script moved, with the fix', async () => {
    const home = tempDir();
    const env = { HOME: home, PATH: process.env.PATH, npm_config_update_notifier: 'false' };
    expect((await sparehand(['agent', 'install', 'claude-code'], { env, cwd: home })).exitCode).toBe(0);
    const ok = await sparehand(['doctor', '--json'], { env, cwd: home });
    const hooks = (JSON.parse(ok.stdout) as { checks: { name: string; ok: boolean; detail: string }[] }).checks.filter((c) => c.name.startsWith('hook:'));
    expect(hooks.map((c) => [c.name, c.ok])).toEqual([['hook: claude-code (user)', true]]);
    expect(ok.exitCode).toBe(0);

    const file = join(home, '.claude', 'settings.json');
    // The installation moved: the entry still names sparehand's script, at a path that is gone.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"[^"]*\/bin\/sparehand\.js/g, '"/moved-away/bin/sparehand.js'));
    const bad = await sparehand(['doctor'], { env, cwd: home });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toMatch(
      /BAD hook: claude-code \(user\): .*settings\.json: the hook names \/moved-away\/bin\/sparehand\.js, which no longer exists; fix: sparehand agent install claude-code/,
    );
  });
});

describe('sparehand doctor: no worker', () => {
  it('says that every run happens here (not a failure: --or-local is made for it)', async () => {
    const home = tempDir();
    const r = await sparehand(['doctor'], { env: { HOME: home, PATH: process.env.PATH }, cwd: home });
    expect(r.stdout).toContain(
      'ok  config: 0 workers configured\nok  workers: none: every run happens here, on this machine; add one with `sparehand worker add NAME user@host`\n',
    );
  });
});
