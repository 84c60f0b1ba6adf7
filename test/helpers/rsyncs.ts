// A Mac's rsync, built once per machine from its vendored source, for tests that put it first on PATH here or on a
// worker: openrsync (macOS 15.4 and later; test/fixtures/openrsync, whose PROVENANCE.md says where it came from).
// rsync 2.6.9 (earlier macOS) has no source here: its options are tested as data (test/remote/rsync-flavour.test.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from './fixtures.js';

/**
 * A folder holding `rsync` built from `tarball` by `build` (run in the unpacked `folder`, which must leave the
 * program at `program`); put it first on a PATH. Built on first use, then reused by every test on this machine.
 */
function built(tarball: string, folder: string, program: string, build: (src: string) => void, needs: string): string {
  const hash = createHash('sha256').update(readFileSync(tarball)).digest('hex').slice(0, 12);
  // Per user (another user cannot replace or write into this one's), readable by all (a test worker runs it as its own user).
  const dir = join(tmpdir(), `sparehand-${folder}-${process.getuid?.() ?? 0}-${hash}`);
  if (existsSync(join(dir, 'bin', 'rsync'))) {
    if (lstatSync(dir).uid !== (process.getuid?.() ?? 0)) throw new Error(`${dir} is another user's: remove it`);
    return join(dir, 'bin');
  }
  // Built aside and renamed into place: test files in parallel may build it at once, one of them wins.
  const work = mkdtempSync(join(tmpdir(), `sparehand-${folder}-build-`));
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', work]);
    build(join(work, folder));
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`cannot build ${folder} (needs ${needs}, as .ci/run installs): ${(e as Error).message}`);
  }
  mkdirSync(join(work, 'bin'));
  chmodSync(work, 0o755);
  symlinkSync(`../${folder}/${program}`, join(work, 'bin', 'rsync'));
  try {
    renameSync(work, dir);
  } catch {
    rmSync(work, { recursive: true, force: true });
  }
  return join(dir, 'bin');
}

/** openrsync, as upstream builds it. */
export function openrsyncBin(): string {
  return built(
    `${FIXTURES}openrsync/openrsync-src.tar.gz`,
    'openrsync',
    'openrsync',
    (src) => {
      execFileSync('./configure', [], { cwd: src, stdio: 'pipe' });
      execFileSync('bmake', [], { cwd: src, stdio: 'pipe' });
    },
    'bmake and zlib1g-dev',
  );
}
