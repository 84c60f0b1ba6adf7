import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { sparehand } from '../helpers/cli.js';

describe('sparehand run with no worker configured', () => {
  const env = () => {
    const home = tempDir();
    return { PATH: process.env.PATH, HOME: home };
  };

  it('--or-local runs the command here with bash, SPAREHAND_RUN=1, and its own exit status', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    const r = await sparehand(['run', '--or-local', '--', 'echo "[$SPAREHAND_RUN]" > out.txt; pwd; [[ 1 == 1 ]] && exit 7'], {
      env: env(),
      cwd: join(dir, 'sub'),
    });
    expect(r.exitCode).toBe(7);
    expect(r.stdout).toBe(`${join(dir, 'sub')}\n`);
    expect(readFileSync(join(dir, 'sub', 'out.txt'), 'utf8')).toBe('[1]\n');
    expect(r.stderr).toBe('sparehand: running locally: no worker configured; to run on a spare machine, add one: `sparehand worker add NAME user@host`\n');
  });

  it('several arguments are an argv, quoted and joined', async () => {
    const r = await sparehand(['run', '--or-local', '--', 'printf', '%s|', 'a b', "it's", '$HOME'], { env: env() });
    expect(r.stdout).toBe("a b|it's|$HOME|");
  });

  it('without --or-local and no worker: exit 125 and a message with the fix', async () => {
    const r = await sparehand(['run', '--', 'true'], { env: env() });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).toContain('no worker is configured');
    expect(r.stderr).toContain('--or-local');
  });

  it('a command killed by a signal exits 128+N', async () => {
    const r = await sparehand(['run', '--or-local', '--', 'kill -TERM $$'], { env: env() });
    expect(r.exitCode).toBe(143);
  });
});
