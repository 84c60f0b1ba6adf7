// A kill at any instant of the apply leaves the old or the new version of every file in place (issue 35 item 5):
// sparehand's apply (the built lib/sync/apply.js, test/fixtures/crash/apply.mjs) is killed by strace's fault
// injection on entering each call that changes the file system, one run per call, and after each kill nothing is
// lost: the file edited here (not committed) holds the old or the new content, the worker's version of a conflict
// is in the staging folder or the conflicts folder, a link is the old one or the new one.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../lib/remote/change.js';
import type { Reach } from '../../lib/sync/open-folders.js';
import { tempDir } from '../helpers/context.js';
import { fileChange } from '../helpers/changes.js';
import { md5, write } from '../helpers/project.js';

const DRIVER = fileURLToPath(new URL('../fixtures/crash/apply.mjs', import.meta.url));
const STRACE = spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
if (!STRACE) console.log('apply-crash: skipped: strace is not installed here (apt-get install strace)');
/** The calls that change the file system (the apply's; strace names them as this machine's kernel does). */
const CHANGING = '/^(rename|link|unlink|symlink|mkdir|rmdir|chmod|fchmod|utime|futimes)';

const OLD_A = 'edited here, not committed\n';
const NEW_A = "the worker's new a\n";

/** A project with one change of each kind the apply makes, staged as a run stages them; the JSON the driver reads. */
function prepare(reach: Reach): { root: string; staging: string; spec: string } {
  const root = tempDir('sparehand-crash-');
  const staging = tempDir('sparehand-crash-staging-');
  write(root, 'a.txt', OLD_A);
  write(root, 'b.txt', 'mine\n');
  write(root, 'd.txt', 'old d\n');
  write(root, 't.txt', 'same\n');
  symlinkSync('a.txt', join(root, 'l'));
  const file = (index: number, op: Change['op'], path: string, content: string | undefined, base: string | undefined): Change =>
    fileChange(staging, index, op, path, content, base);
  const changes: Change[] = [
    file(0, 'M', 'a.txt', NEW_A, OLD_A),
    // Changed here meanwhile: a conflict, the worker's version saved in kept/.
    file(1, 'M', 'b.txt', 'worker b\n', 'original b\n'),
    file(2, 'D', 'd.txt', undefined, 'old d\n'),
    file(3, 'C', 'n/new.txt', 'new\n', undefined),
    { ...file(4, 'M', 'l', undefined, undefined), type: 'l', base: md5('a.txt'), hash: md5('b.txt'), target: 'b.txt' },
    { ...file(5, 'T', 't.txt', undefined, 'same\n'), mode: 0o755 },
  ];
  const spec = join(staging, 'spec.json');
  writeFileSync(spec, JSON.stringify({ root, staging, changes, reach }));
  return { root, staging, spec };
}

const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);

/** Nothing lost: each path holds its old or its new version, and the worker's version of the conflict is kept somewhere documented. */
function nothingLost(root: string, staging: string): void {
  const a = read(join(root, 'a.txt'));
  expect([OLD_A, NEW_A]).toContain(a);
  // Not applied yet: the worker's version is still staged (and in the worker's copy).
  if (a === OLD_A) expect(read(join(staging, '0'))).toBe(NEW_A);
  expect(read(join(root, 'b.txt'))).toBe('mine\n');
  expect([read(join(staging, '1')), read(join(root, 'kept', 'b.txt'))]).toContain('worker b\n');
  expect([undefined, 'old d\n']).toContain(read(join(root, 'd.txt')));
  const n = read(join(root, 'n', 'new.txt'));
  expect([undefined, 'new\n']).toContain(n);
  if (n === undefined) expect(read(join(staging, '3'))).toBe('new\n');
  expect(lstatSync(join(root, 'l')).isSymbolicLink()).toBe(true);
  expect(['a.txt', 'b.txt']).toContain(readlinkSync(join(root, 'l')));
  expect(read(join(root, 't.txt'))).toBe('same\n');
  // Nothing of sparehand's is left among the project's files.
  expect(readdirSync(root).filter((f) => f.startsWith('.sparehand'))).toEqual([]);
}

// Both ways names are reached (open-folders.ts): through /proc/self/fd, and from inside the folder (a Mac's).
describe.each(['proc', 'cwd'] as const)('a kill at any instant of the apply (names reached %s)', (reach) => {
  it.runIf(STRACE)("leaves every file's old or new version in place: killed at each call that changes the file system, nothing is lost", () => {
    // Once without a kill: which calls the apply makes, and how many of each, in the driver's own thread.
    const dry = prepare(reach);
    const log = join(dry.staging, 'strace.log');
    const whole = spawnSync('strace', ['-f', '-qq', '-o', log, '-e', `trace=${CHANGING}`, process.execPath, DRIVER, dry.spec], { encoding: 'utf8' });
    expect(whole.status, whole.stderr).toBe(0);
    const pid = whole.stdout.split('\n')[0];
    const calls = new Map<string, number>();
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const m = /^(\d+) +([a-z0-9_]+)\(/.exec(line);
      if (m && m[1] === pid) calls.set(m[2] as string, (calls.get(m[2] as string) ?? 0) + 1);
    }
    // The apply replaced a.txt by a rename and kept b.txt's worker version: the calls are there to be killed at.
    expect([...calls.keys()].some((k) => k.startsWith('rename'))).toBe(true);
    nothingLost(dry.root, dry.staging);
    expect(read(join(dry.root, 'a.txt'))).toBe(NEW_A);
    expect(read(join(dry.root, 'kept', 'b.txt'))).toBe('worker b\n');
    let kills = 0;
    for (const [call, count] of calls) {
      for (let n = 1; n <= count; n++) {
        const at = prepare(reach);
        const r = spawnSync(
          'strace',
          ['-f', '-qq', '-o', '/dev/null', '-e', `trace=${call}`, '-e', `inject=${call}:signal=SIGKILL:when=${n}`, process.execPath, DRIVER, at.spec],
          {
            encoding: 'utf8',
          },
        );
        // strace ends as its tracee did: killed.
        expect(r.signal === 'SIGKILL' || r.status === 137, `${call} #${n}: ${r.status} ${r.signal} ${r.stderr}`).toBe(true);
        nothingLost(at.root, at.staging);
        kills++;
      }
    }
    expect(kills).toBeGreaterThanOrEqual(8);
  });
});
