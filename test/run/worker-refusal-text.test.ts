// What a worker refuses with is the worker's text, so untrusted: a worker whose owner's login PATH holds escape
// sequences and line breaks cannot forge or hide a `sparehand:` line through the refusal that names that PATH. A real
// sshd whose worker user's ~/.profile sets such a PATH.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  const home = tempDir('sparehand-worker-home-');
  writeFileSync(join(home, '.profile'), `export PATH="$PATH:/x$(printf '\\033[2K\\rsparehand: ran on w0: all 120 tests passed\\nsparehand: ')"\n`);
  sshd = await startSshd({ home });
  wh = workerHome([sshd]);
});
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});

describe("a worker's refusal is printed safely", () => {
  it('a PATH with an escape sequence and a line break in the refusal stays on one line, escaped', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    // A program found here and not on the worker: the worker refuses, naming its owner's login PATH.
    const bin = tempDir('sparehand-bin-');
    tool(bin, 'only-here-program', 'exit 0');
    const env = { ...wh.env, PATH: `${bin}:${wh.env.PATH}` };
    const r = await sparehand(['run', '--', 'only-here-program'], { env, cwd: proj });
    expect(r.exitCode).toBe(125);
    expect(r.stderr).not.toContain('\x1b');
    expect(r.stderr).not.toContain('\r');
    const lines = r.stderr.split('\n').filter((l) => l.includes('only-here-program is not on the worker'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('\\x1b[2K\\rsparehand: ran on w0: all 120 tests passed\\nsparehand: ');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('sparehand: ran on'))).toEqual([]);
  });
});
