// Dependencies installed once per worker, not once per slot (issue 42): a slot whose dependencies are missing or
// stale takes them from a sibling slot that installed them from the same inputs, as a whole copy (never links), so
// a command in one slot changes only its own; a sibling whose install was changed since is not copied from; a lock
// file changed here installs afresh. Real npm and real packages (test/fixtures/npm/) from a registry on 127.0.0.1,
// real Python venvs from a local wheel, a real sshd whose worker has two slots, the worker added as README says.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { sharedTempDir, tempDir } from '../helpers/context.js';
import { type NpmRegistry, msProject } from '../helpers/npm-registry.js';
import { startNpmWorker } from '../helpers/npm-worker.js';
import { until } from '../helpers/project.js';
import { wheel } from '../helpers/python.js';
import type { Sshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath } from '../helpers/worker-env.js';

let registry: NpmRegistry;
let sshd: Sshd;
let wh: WorkerHome;
let env: NodeJS.ProcessEnv;
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  ({ registry, sshd, wh, env, stop } = await startNpmWorker({ slots: 2 }));
});
afterAll(() => stop?.());

/** A run that holds slot 0 once its command runs (`MARK/held`) until the test lets it go (`MARK/go`). */
async function holdSlot0(proj: string, first: string): Promise<{ done: Promise<{ exitCode?: number; stderr: string }>; release: () => void }> {
  const mark = sharedTempDir('sparehand-mark-');
  const command = `${first} && touch ${mark}/held && i=0; while [ ! -e ${mark}/go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done`;
  const done = sparehand(['run', '--', command], { env, cwd: proj });
  expect(await until(() => existsSync(join(mark, 'held')), 60_000)).toBe(true);
  return { done, release: () => writeFileSync(join(mark, 'go'), '') };
}

const copied = (stderr: string) => stderr.split('\n').filter((l) => /^sparehand: dependencies on the worker copied from slot \d/.test(l));
const installed = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('sparehand: installing dependencies on the worker'));

describe('dependencies on a worker with two slots', () => {
  it('the second slot copies what the first installed from the same lock file; a command in one slot changes only its own', async () => {
    const proj = await msProject(registry, 'node_modules/\n', []);
    mkdirSync(join(proj, 'extra'));
    writeFileSync(join(proj, 'extra', 'package.json'), '{"name":"extra","version":"1.0.0"}\n');
    const a = await holdSlot0(proj, 'npm test');
    try {
      const b = await sparehand(['run', '--', 'npm test && npm install --no-save --no-audit --no-fund ./extra'], { env, cwd: proj });
      expect(b.exitCode, b.stderr).toBe(0);
      expect(b.stdout).toMatch(/# pass 1/);
      expect(copied(b.stderr), b.stderr).toEqual([expect.stringMatching(/copied from slot 0, which installed them from the same files \(\d+\.\ds\)$/)]);
      expect(installed(b.stderr)).toEqual([]);
      expect(b.stderr).toMatch(/\nsparehand: ran on w0: sync \d+\.\ds, deps \d+\.\ds, run /);
    } finally {
      a.release();
    }
    const ra = await a.done;
    expect(ra.exitCode, ra.stderr).toBe(0);
    expect(installed(ra.stderr)).toHaveLength(1);
    // Slot 1's own install reached only slot 1; slot 0's node_modules are as its install left them.
    const slot0 = join(copyPath(wh, sshd.remoteDir, proj, 0), 'node_modules');
    const slot1 = join(copyPath(wh, sshd.remoteDir, proj, 1), 'node_modules');
    expect(existsSync(join(slot1, 'extra'))).toBe(true);
    expect(existsSync(join(slot0, 'extra'))).toBe(false);
    expect(existsSync(join(slot0, 'ms', 'package.json'))).toBe(true);
  });

  // (Guards the copy: it held before there was one, and must hold with it.)
  it('a sibling whose install was changed since is not copied from: the slot installs on its own, and a lock file changed here installs afresh', async () => {
    const proj = await msProject(registry, 'node_modules/\n', []);
    const a = await holdSlot0(proj, 'npm test');
    try {
      // The first slot's install, damaged on the worker after its record was written.
      rmSync(join(copyPath(wh, sshd.remoteDir, proj, 0), 'node_modules', 'ms'), { recursive: true, force: true });
      const b = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
      expect(b.exitCode, b.stderr).toBe(0);
      expect(b.stdout).toMatch(/# pass 1/);
      expect(copied(b.stderr)).toEqual([]);
      expect(installed(b.stderr)).toHaveLength(1);
    } finally {
      a.release();
    }
    expect((await a.done).exitCode).toBe(0);
    // A lock file changed here: the next run installs from it, whichever slot it lands in, and copies nothing stale.
    const lock = JSON.parse(readFileSync(join(proj, 'package-lock.json'), 'utf8')) as { name: string };
    lock.name = 'uses-ms-renamed';
    writeFileSync(join(proj, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
    const c = await sparehand(['run', '--', 'npm test'], { env, cwd: proj });
    expect(c.exitCode, c.stderr).toBe(0);
    expect(copied(c.stderr)).toEqual([]);
    expect(installed(c.stderr)).toHaveLength(1);
  });

  it("a venv copied from a sibling slot names this slot's folder: its scripts run this slot's python", async () => {
    const proj = tempDir('sparehand-venv-slots-');
    mkdirSync(join(proj, 'wheels'));
    wheel(join(proj, 'wheels'), 'tiny', 'VALUE = 42\n');
    writeFileSync(join(proj, 'requirements.txt'), './wheels/tiny-1.0-py3-none-any.whl\n');
    writeFileSync(join(proj, '.gitignore'), '.venv/\n');
    execFileSync('git', ['init', '-q'], { cwd: proj });
    const probe = `.venv/bin/python -c 'import sys, tiny; print(sys.prefix, tiny.VALUE)' && head -1 .venv/bin/pip`;
    const a = await holdSlot0(proj, probe);
    try {
      const b = await sparehand(['run', '--', probe], { env, cwd: proj });
      expect(b.exitCode, b.stderr).toBe(0);
      expect(copied(b.stderr), b.stderr).toHaveLength(1);
      // (Output names the copy's folder as this project's: root-rewrite.ts. Slot 0's folder would show as itself.)
      const [prefix, shebang] = b.stdout.split('\n');
      expect(prefix).toBe(`${join(proj, '.venv')} 42`);
      expect(shebang).toMatch(new RegExp(`^#!${join(proj, '.venv', 'bin', 'python')}3?$`));
    } finally {
      a.release();
    }
    expect((await a.done).exitCode).toBe(0);
  });
});
