// One ending of the table (lib/run/endings.ts) through the real CLI: the connection lost after the slot was given,
// before the command started, gives exactly today's status and lines, which are the table's. A real sshd.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDINGS, endLine, endStatus } from '../../lib/run/endings.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let h: WorkerHome;
beforeAll(async () => {
  // The worker's login profile ends the worker program (its parent) once it has given the slot.
  const home = tempDir('sparehand-worker-home-');
  writeFileSync(join(home, '.profile'), 'kill -9 $PPID\n');
  sshd = await startSshd({ home });
  h = workerHome([sshd]);
});
afterAll(async () => {
  await h?.close();
  await sshd?.stop();
});

describe('the connection lost before the command started', () => {
  const end = { kind: 'lost-before-start', worker: 'w0' } as const;

  it("without --or-local: 125 and the table's line and hint, and nothing ran anywhere", async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--', 'touch ran'], { env: h.env, cwd: proj });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([
      125,
      '',
      'sparehand: the connection to w0 was lost before the command started; nothing ran there\n' +
        'sparehand: try `sparehand worker check w0`; or run with --or-local to run here when no worker can\n',
    ]);
    expect(r.exitCode).toBe(endStatus(end));
    expect(r.stderr).toBe(`sparehand: ${endLine(end)}\nsparehand: ${ENDINGS[end.kind].hint(end)}\n`);
    expect(existsSync(join(proj, 'ran'))).toBe(false);
  });

  it('with --or-local: the same sentence is why it runs here, with its own status', async () => {
    const r = await sparehand(['run', '--or-local', '--', 'echo "ran $SPAREHAND_RUN"; exit 3'], { env: h.env, cwd: gitProject({ 'a.txt': 'a\n' }) });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([3, 'ran 1\n', `sparehand: running locally: ${endLine(end)}\n`]);
  });
});
