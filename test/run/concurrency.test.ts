import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxOverlap } from '../helpers/project.js';
import { sparehand } from '../helpers/cli.js';
import { sharedTempDir } from '../helpers/context.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

let a: Sshd;
let b: Sshd;
const homes: WorkerHome[] = [];
beforeAll(async () => {
  a = await startSshd();
  b = await startSshd({ identity: a.identity });
});
afterAll(async () => {
  await Promise.all(homes.map((h) => h.close()));
  await a?.stop();
  await b?.stop();
});

const project = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sparehand-proj-'));
  writeFileSync(join(dir, 'README'), 'hi\n');
  return dir;
};

describe('many runs at once', () => {
  it('8 concurrent runs on 2 workers x 2 slots: all correct, never more than 2 at once on a worker, no slot shared', async () => {
    const h = workerHome([a, b], { slots: 2 });
    homes.push(h);
    // (The worker writes it: another user's when the tests run as root.)
    const log = join(sharedTempDir('sparehand-log-'), 'runs.log');
    const projects = [project(), project()];
    const cmd = (i: number) =>
      `echo "S $(date +%s%N) $PWD" >> ${log}; sleep 1.2; echo "E $(date +%s%N) $PWD" >> ${log}; echo "run ${i} $(cat README)"; exit ${i}`;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => sparehand(['run', '--', cmd(i)], { env: h.env, cwd: projects[i % 2] })));
    results.forEach((r, i) => {
      expect(r.exitCode, r.stderr).toBe(i);
      expect(r.stdout).toBe(`run ${i} hi\n`);
      expect(r.stderr).toMatch(/sparehand: ran on w[01]: /);
    });
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string, string]);
    expect(lines).toHaveLength(16);
    const byDir = new Map<string, { s?: number; spans: Array<[number, number]> }>();
    for (const [kind, t, dir] of lines) {
      const e = byDir.get(dir) ?? { spans: [] };
      byDir.set(dir, e);
      if (kind === 'S') e.s = Number(BigInt(t) / 1000n);
      else e.spans.push([e.s as number, Number(BigInt(t) / 1000n)]);
    }
    // One slot folder never runs two commands at once.
    for (const [dir, { spans }] of byDir) expect(maxOverlap(spans), `two runs at once in ${dir}`).toBe(1);
    for (const sshd of [a, b]) {
      const spans = [...byDir.entries()].filter(([d]) => d.startsWith(sshd.remoteDir)).flatMap(([, v]) => v.spans);
      expect(spans.length).toBeGreaterThan(0);
      expect(maxOverlap(spans), `more than 2 runs at once on ${sshd.remoteDir}`).toBeLessThanOrEqual(2);
    }
    expect(results.filter((r) => r.stderr.includes('busy; waiting')).length).toBeGreaterThan(0);
  });

  it('all slots busy: --or-local runs here at once, with one line saying so', async () => {
    const h = workerHome([a], { slots: 1, dir: 'one-slot' });
    homes.push(h);
    const proj = project();
    const long = sparehand(['run', '--', 'sleep 2'], { env: h.env, cwd: proj });
    await new Promise((r) => setTimeout(r, 800));
    const r = await sparehand(['run', '--or-local', '--', 'echo local $SPAREHAND_RUN'], { env: h.env, cwd: proj });
    expect(r.stdout).toBe('local 1\n');
    expect(r.stderr).toBe('sparehand: running locally: all worker slots are busy\n');
    expect((await long).exitCode).toBe(0);
  });
});
