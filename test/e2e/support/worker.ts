// A real sshd on 127.0.0.1 as the worker of the e2e runs: started once per test file, trusted and configured in
// each run's throwaway HOME (sparehand's config names it `w0`), its copies of the project looked at afterwards.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Sshd, startSshd, trustHostKey } from '../../helpers/sshd.js';
import type { Sandbox } from './harness.js';
import type { Scenario } from './scenario.js';

export interface E2eWorker {
  readonly sshd: Sshd;
  /** Trusts the worker's host key and names it in sparehand's config, in the run's HOME. */
  configure(box: Sandbox): void;
  /** Whether the project was sent to the worker (its first copy there holds package.json). */
  hasCopy(box: Sandbox): boolean;
}

export function e2eWorker(): E2eWorker {
  let sshd: Sshd | undefined;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  return {
    get sshd() {
      return sshd!;
    },
    configure(box) {
      trustHostKey(box.home, sshd!);
      const dir = join(box.home, '.config', 'sparehand');
      mkdirSync(dir, { recursive: true });
      // Added as README says: the worker's ordinary user, no --dir (the copies go to ~/.cache/sparehand/work there).
      const worker = { name: 'w0', destination: sshd!.destination, port: sshd!.port, identity: sshd!.identity };
      writeFileSync(join(dir, 'config.json'), `${JSON.stringify({ workers: [worker] }, null, 2)}\n`);
    },
    hasCopy(box) {
      // The worker's folder holds every run's projects (`<key>/<copy>/`): this run's is the one whose README has its mark.
      const dir = sshd!.remoteDir;
      if (!existsSync(dir)) return false;
      return readdirSync(dir).some((key) => {
        const readme = join(dir, key, '0', 'README.md');
        return existsSync(join(dir, key, '0', 'package.json')) && existsSync(readme) && readFileSync(readme, 'utf8').includes(box.mark);
      });
    },
  };
}

/** The project's test script says whether it ran inside sparehand, then fails with `status` (its own, to be passed on). */
export function testsExitWith(box: Sandbox, status: number): void {
  const file = join(box.project, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  pkg.scripts.test = `${pkg.scripts.test} && exit ${status}`;
  writeFileSync(file, JSON.stringify(pkg, null, 2));
}

/**
 * Tool result number `result` shows the heavy command ran through sparehand with its own exit status (`status`, in
 * the tool's words), sparehand's line matching `line`, and the project on the worker or not (`copy`).
 */
export function expectRan(s: Scenario, worker: E2eWorker, opts: { result: number; status: string; line: RegExp; copy: boolean }): void {
  const text = s.box.fake.results[opts.result]?.text ?? '';
  expect(text, s.why).toContain('SPAREHAND_RUN=1');
  expect(text, s.why).toContain(opts.status);
  expect(text, s.why).toMatch(opts.line);
  expect(worker.hasCopy(s.box), s.why).toBe(opts.copy);
}
