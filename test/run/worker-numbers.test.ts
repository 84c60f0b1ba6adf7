// No number from the worker is taken at its word, and every wait has an end (issue 35): a hole the size of the
// biggest safe integer, a worker program its command stopped, a limit past what a timer holds. A real sshd whose
// sessions run as an ordinary user; a hostile worker program is the real one with its report replaced, by a `perl`
// first on the worker's PATH that edits the program the bootstrap is given (it has the session's key: it is the
// worker program).
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { sharedTempDir, tempDir } from '../helpers/context.js';
import { gitProject, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, workerHome } from '../helpers/worker-env.js';

const sshds: Sshd[] = [];
const homes: WorkerHome[] = [];
let plain: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  plain = await startSshd();
  sshds.push(plain);
  wh = workerHome([plain]);
  homes.push(wh);
});
afterAll(async () => {
  await Promise.all(homes.map((h) => h.close()));
  await Promise.all(sshds.map((s) => s.stop()));
});

/** A worker whose program reports, once its command ran, one new file of SIZE bytes, all of it one hole. */
async function holeWorker(size: string): Promise<WorkerHome> {
  const bin = tempDir('sparehand-hole-perl-');
  // The bootstrap made to run the program through forge.pm's `patched`, which adds the forged report after `ran`.
  writeFileSync(
    join(bin, 'perl'),
    String.raw`#!/usr/bin/perl
my @a = @ARGV;
if (@a >= 2 && $a[0] eq '-e') { $a[1] =~ s/eval\$program;/eval(patched(\$program));/; unshift @a, '-I${bin}', '-Mforge' }
exec '/usr/bin/perl', @a;
`,
  );
  chmodSync(join(bin, 'perl'), 0o755);
  writeFileSync(
    join(bin, 'forge.pm'),
    String.raw`package main;
sub patched {
  my ($p) = @_;
  my $ran = q{put('ran', "$status $deps");};
  my $i = index($p, $ran);
  substr($p, $i + length $ran, 0) = q{ put('chg', "C f 420 1700000000 ${size} - -1 4
huge"); put('hole', '${size}'); put('sum', 'x' x 32); put('end', 1); answer_wants([]); exit 0; } if $i >= 0;
  return $p;
}
1;
`,
  );
  const sshd = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin` });
  sshds.push(sshd);
  const h = workerHome([sshd]);
  homes.push(h);
  return h;
}
const read = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};
/** Ends what a stopped worker program left (nothing of the worker is sparehand's to end): the test does. */
function endStopped(pids: string): void {
  const [perl, group] = read(pids).trim().split(' ').map(Number);
  for (const [pid, sig] of [
    [group ? -group : 0, 'SIGKILL'],
    [perl ?? 0, 'SIGKILL'],
  ] as const) {
    try {
      if (pid) process.kill(pid, sig);
    } catch {
      /* gone */
    }
  }
}

describe('sizes are bounded before any work, and the work yields', () => {
  it('a hole of 2^53 bytes: the report is refused at once, the status stands', async () => {
    const h = await holeWorker('9007199254740991');
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--', 'echo ran; exit 4'], { env: h.env, cwd: proj });
    expect(r.stdout).toBe('ran\n');
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain('the report of what the command changed cannot be trusted (a file of 9007199254740991 bytes (at most 1099511627776))');
  });

  it('a hole of 1 TiB, which would take many minutes to hash: --timeout ends the run with the status, nothing applied', async () => {
    const h = await holeWorker(String(2 ** 40));
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--timeout', '8s', '--', 'echo ran; exit 4'], { env: h.env, cwd: proj });
    expect(r.stdout).toBe('ran\n');
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain('the command ended (exit 4), but its files did not come back within --timeout 8s; nothing was brought back');
    expect(readFileSync(join(proj, 'a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('every wait has an end', () => {
  it('a command that stops the worker program (kill -STOP $PPID): --timeout ends the run, 124, the session hung up on', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const shared = sharedTempDir('sparehand-stopped-');
    const pids = join(shared, 'pids');
    try {
      const r = await sparehand(['run', '--timeout', '4s', '--', `echo "$PPID $$" > ${pids}; kill -STOP $PPID; sleep 600`], { env: wh.env, cwd: proj });
      expect(r.exitCode, r.stderr).toBe(124);
      expect(r.stderr).toContain('stopped: the command ran past --timeout 4s; nothing was brought back');
    } finally {
      endStopped(pids);
    }
  });

  it('the same, ended by SIGTERM instead: sparehand ends with 143', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const shared = sharedTempDir('sparehand-stopped-');
    const pids = join(shared, 'pids');
    const p = sparehand(['run', '--', `echo "$PPID $$" > ${pids}; kill -STOP $PPID; sleep 600`], { env: wh.env, cwd: proj });
    try {
      expect(await until(() => read(pids).includes(' '), 30_000)).toBe(true);
      // (Sent to it directly: execa's own kill would follow with a SIGKILL after 5 s.)
      process.kill(p.pid as number, 'SIGTERM');
      const r = await p;
      expect([r.exitCode, r.signal], r.stderr).toEqual([143, undefined]);
    } finally {
      endStopped(pids);
    }
  });

  it('--timeout 600h, past what a timer holds: the run runs', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await sparehand(['run', '--timeout', '600h', '--', 'echo fine'], { env: wh.env, cwd: proj });
    expect(r.stdout).toBe('fine\n');
    expect(r.exitCode, r.stderr).toBe(0);
  });
});
