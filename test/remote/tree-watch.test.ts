// The worker's tree watch (Perl), run here with real perl on real folders: what it reports is exactly what the
// command changed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Change, ResultsParser } from '../../lib/remote/results.js';
import { notBroughtBack, skipArgument, skipRules } from '../../lib/remote/sync-rules.js';
import { TREE_WATCH } from '../../lib/remote/tree-watch.js';
import { tempDir } from '../helpers/context.js';

/** Runs `command` under the watch in `dir` (its record beside it); the parsed results and the output before them. */
function watch(dir: string, command: string, skip = skipArgument(skipRules(notBroughtBack({})))) {
  const r = spawnSync('perl', ['-e', TREE_WATCH, `${dir}.tree`, skip, 'N1', '-', 'bash', '-c', command], { cwd: dir });
  const staging = tempDir();
  const parser = new ResultsParser('N1', () => staging);
  const output = parser.push(r.stdout);
  parser.close();
  const results = parser.results;
  if (results?.kind !== 'ran') throw new Error(`no results: ${r.stderr}`);
  const brief = (c: Change) => `${c.op} ${c.type} ${c.path}${c.type === 'l' ? ` -> ${c.target}` : ''}`;
  return { status: r.status, output: output.toString(), status2: results.status, changes: results.changes.map(brief), raw: results.changes };
}

function project(): string {
  const dir = join(tempDir(), 'slot');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), 'a\n');
  writeFileSync(join(dir, 'keep.txt'), 'k\n');
  writeFileSync(join(dir, 'gone.txt'), 'g\n');
  mkdirSync(join(dir, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'x', 'i.js'), '1\n');
  return dir;
}

describe('the tree watch', () => {
  it('reports created, changed, touched and deleted files, folders and links; the command\'s output and status pass through', () => {
    const dir = project();
    const w = watch(dir, 'echo out; echo b > src/a.ts; touch -d 2020-01-01 keep.txt; rm gone.txt; mkdir -p new/empty; echo n > new/n.txt; ln -s ../keep.txt new/l; exit 3');
    expect([w.status, w.status2, w.output]).toEqual([3, 3, 'out\n']);
    // Deletions first (deepest first), then the rest, parents before children.
    expect(w.changes).toEqual(['D f gone.txt', 'T f keep.txt', 'C d new', 'C d new/empty', 'C l new/l -> ../keep.txt', 'C f new/n.txt', 'M f src/a.ts']);
    const a = w.raw.find((c) => c.path === 'src/a.ts');
    expect([a?.base, a?.hash]).toEqual([md5('a\n'), md5('b\n')]);
  });

  it('a second run sees only what that command changed (the record kept between runs)', () => {
    const dir = project();
    watch(dir, 'echo 1 > out.txt');
    expect(watch(dir, 'true').changes).toEqual([]);
    expect(watch(dir, 'echo 2 > out.txt').changes).toEqual(['M f out.txt']);
  });

  it('never walks into skipped folders, never follows a link, and sends a hard link once', () => {
    const dir = project();
    const outside = tempDir();
    const w = watch(dir, `echo 2 > node_modules/x/i.js; ln -s ${outside} ext; echo x > ${outside}/f; echo bin > b1; ln b1 b2; mkdir -p target/debug/deps && echo o > target/debug/deps/o`);
    expect(w.changes).toEqual(['C f b1', 'C f b2', 'C l ext -> ' + outside, 'C d target', 'C d target/debug']);
    expect(w.raw.find((c) => c.path === 'b2')?.hash).toBe(md5('bin\n'));
  });

  it('a change in the same clock tick as the sync that wrote the file is still seen (the watch waits the tick out)', (ctx) => {
    // ext3 with 128-byte inodes keeps whole seconds, as HFS+ and old file systems do: there a file written by the
    // sync and rewritten by the command within one second has the same stat unless the watch waits.
    const fs = coarseFileSystem();
    if (typeof fs === 'string') return ctx.skip(fs);
    try {
      const dir = join(fs.path, 'slot');
      mkdirSync(join(dir, 'src'), { recursive: true });
      for (let i = 0; i < 4; i++) {
        writeFileSync(join(dir, 'src', 'a.ts'), `${i % 10}\n`);
        const w = watch(dir, `printf '${(i + 1) % 10}\\n' > src/a.ts`);
        expect(w.changes, `round ${i}`).toEqual(['M f src/a.ts']);
      }
    } finally {
      fs.remove();
    }
  });

  it('a folder the command makes unreadable hides its files, which are not reported deleted', (ctx) => {
    // Root reads any folder: the watch runs as nobody, as a worker's owner would.
    if (spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status !== 0) return ctx.skip('runuser -u nobody is not available here');
    const dir = project();
    mkdirSync(join(dir, 'old', 'x'), { recursive: true });
    writeFileSync(join(dir, 'old', 'x', 'f'), '1\n');
    execFileSync('chown', ['-R', 'nobody', join(dir, '..')]);
    const staging = tempDir();
    const r = spawnSync('runuser', ['-u', 'nobody', '--', 'perl', '-e', TREE_WATCH, `${dir}.tree`, skipArgument(skipRules(notBroughtBack({}))), 'N1', '-', 'bash', '-c', 'chmod 000 src; chmod 444 old; mkdir -p n/m && echo 1 > n/m/f && chmod 444 n; echo x > keep.txt'], { cwd: dir });
    const parser = new ResultsParser('N1', () => staging);
    parser.push(r.stdout);
    const results = parser.results;
    // `src` cannot be read, `old`'s entries cannot be looked at (no x): neither's files are reported deleted.
    expect(results?.kind === 'ran' && results.changes.map((c) => `${c.op} ${c.path}`), r.stderr.toString()).toEqual(['M keep.txt', 'C n']);
  });

  it('perl without Digest::MD5 or Time::HiRes: a refusal the run can act on, not a crash', () => {
    const dir = project();
    const lib = tempDir();
    mkdirSync(join(lib, 'Digest'));
    writeFileSync(join(lib, 'Digest', 'MD5.pm'), 'die "no MD5 here\\n";\n');
    const r = spawnSync('perl', [`-I${lib}`, '-e', TREE_WATCH, `${dir}.tree`, '', 'N1', '-', 'true'], { cwd: dir });
    expect(r.status).toBe(125);
    expect(r.stdout.toString()).toMatch(/^\0sparehand-results N1 refused the worker's perl lacks Time::HiRes or Digest::MD5/);
  });
});

/** A file system with whole-second times (a loop-mounted ext3 with 128-byte inodes), or why there is none. */
function coarseFileSystem(): { path: string; remove: () => void } | string {
  const dir = tempDir();
  const image = join(dir, 'fs.img');
  const path = join(dir, 'mnt');
  mkdirSync(path);
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' });
  run('truncate', ['-s', '16M', image]);
  const made = run('mkfs.ext3', ['-q', '-F', '-I', '128', image]);
  if (made.status !== 0) return `cannot make an ext3 file system here: ${made.stderr || made.error}`;
  const mounted = run('mount', ['-o', 'loop', image, path]);
  if (mounted.status !== 0) return `cannot mount a loop device here (needs root and /dev/loop*): ${mounted.stderr.trim()}`;
  return { path, remove: () => run('umount', [path]) };
}

// md5sum, not node's createHash (helpers/project.ts md5): the hashes checked here come from the code under test, the
// worker's Perl and lib/remote/results.ts's createHash, so the expected ones come from an implementation outside both.
function md5(s: string): string {
  return execFileSync('md5sum', { input: s, encoding: 'utf8' }).split(' ')[0] as string;
}
