// Attacks on the sync back, each a way work was lost before (issue "Sync back that can never lose work"):
// a real sshd on 127.0.0.1, the real CLI, files changed here while the command runs on the worker.
import { cpSync, existsSync, lstatSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/context.js';
import { sparehand } from '../helpers/cli.js';
import { OLD, files, gitProject, startMarker, until, write } from '../helpers/project.js';
import { sharedWorker } from '../helpers/worker-env.js';

/** The worker and the HOME and env every run here uses (never-lose-work-openrsync.test.ts checks that env's rsync). */
export const w = sharedWorker();
const run = (proj: string, cmd: string, extra: string[] = []) => sparehand(['run', ...extra, '--', cmd], { env: w.wh.env, cwd: proj });

/** Starts `cmd` on the worker, waits until it has started, does `meanwhile` here, and returns the finished run. */
async function whileRunning(proj: string, cmd: string, meanwhile: () => void, extra: string[] = []) {
  const mark = startMarker();
  const p = run(proj, `${mark.touch}; ${cmd}`, extra);
  expect(await until(mark.started)).toBe(true);
  meanwhile();
  return p;
}

/** The one path in the run's stderr where a conflict's worker copy was put. */
function savedCopy(proj: string, stderr: string, path: string): string {
  const m = new RegExp(`conflict: [^\\n]*${path.replace(/[.]/g, '[.]')}[^\\n]* in (\\.sparehand/conflicts/[^\\s]+)\\n`).exec(stderr);
  expect(m, stderr).not.toBeNull();
  return readFileSync(join(proj, m?.[1] ?? ''), 'utf8');
}

describe('files changed here during a run are never lost', () => {
  it('a file renamed here during the run keeps its new name and content; nothing comes back', async () => {
    const proj = gitProject({ 'src/util.ts': 'work\n', 'src/other.ts': 'other\n' });
    const r = await whileRunning(proj, 'sleep 1.5', () => renameSync(join(proj, 'src/util.ts'), join(proj, 'src/helpers.ts')));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(files(proj)).toEqual({ 'src/helpers.ts': 'work\n', 'src/other.ts': 'other\n' });
    expect(r.stderr).toMatch(/ran on w0: .*0 files back, 0 conflicts\n/);
  });

  it("renamed here while the command changed it: both versions are kept, the worker's where the message says", async () => {
    const proj = gitProject({ 'src/util.ts': 'work\n' });
    const r = await whileRunning(proj, 'sleep 1.5; echo formatted > src/util.ts', () => renameSync(join(proj, 'src/util.ts'), join(proj, 'src/helpers.ts')));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(files(proj)).toEqual({ 'src/helpers.ts': 'work\n' });
    expect(savedCopy(proj, r.stderr, 'src/util.ts')).toBe('formatted\n');
    expect(r.stderr).toMatch(/, 1 conflict\n/);
  });

  it('a file moved in or copied with cp -a during the run (old mtime) stays, also where the command made the same path', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const outside = tempDir();
    writeFileSync(join(outside, 'data.csv'), 'mine,1\n');
    writeFileSync(join(outside, 'copy.txt'), 'copied\n');
    utimesSync(join(outside, 'data.csv'), OLD, OLD);
    utimesSync(join(outside, 'copy.txt'), OLD, OLD);
    const r = await whileRunning(proj, 'sleep 1.5; echo worker > data.csv', () => {
      renameSync(join(outside, 'data.csv'), join(proj, 'data.csv'));
      cpSync(join(outside, 'copy.txt'), join(proj, 'copy.txt'), { preserveTimestamps: true });
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(files(proj)).toEqual({ 'a.txt': 'a\n', 'data.csv': 'mine,1\n', 'copy.txt': 'copied\n' });
    expect(savedCopy(proj, r.stderr, 'data.csv')).toBe('worker\n');
  });

  it("an edit here that keeps the old mtime and size is not overwritten by the command's change", async () => {
    const proj = gitProject({ 'notes.txt': 'v1\n' });
    const r = await whileRunning(proj, 'sleep 1.5; echo v2-worker > notes.txt', () => {
      writeFileSync(join(proj, 'notes.txt'), 'v9\n');
      utimesSync(join(proj, 'notes.txt'), OLD, OLD);
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(proj, 'notes.txt'), 'utf8')).toBe('v9\n');
    expect(savedCopy(proj, r.stderr, 'notes.txt')).toBe('v2-worker\n');
  });

  it('an edit made here before the run that kept mtime and size (so rsync did not send it) is not overwritten', async () => {
    const proj = gitProject({ 'notes.txt': 'v1\n' });
    expect((await run(proj, 'true')).exitCode).toBe(0);
    // Without the fingerprint kept after the last run (warm-send.ts) or the record of what it sent (warm-kept.ts
    // sentRecord), only rsync's quick check decides what is sent.
    for (const f of readdirSync(join(proj, '.sparehand', 'sync'))) if (/\.(warm|sent)$/.test(f)) rmSync(join(proj, '.sparehand', 'sync', f));
    writeFileSync(join(proj, 'notes.txt'), 'v9\n');
    utimesSync(join(proj, 'notes.txt'), OLD, OLD);
    const r = await run(proj, 'cat notes.txt; echo v2 >> notes.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(proj, 'notes.txt'), 'utf8')).toBe('v9\n');
    expect(r.stderr).toMatch(/conflict: notes\.txt/);
  });

  it('with the fingerprint of the last run, that edit is sent: the command sees it', async () => {
    const proj = gitProject({ 'notes.txt': 'v1\n' });
    expect((await run(proj, 'true')).exitCode).toBe(0);
    writeFileSync(join(proj, 'notes.txt'), 'v9\n');
    utimesSync(join(proj, 'notes.txt'), OLD, OLD);
    const r = await run(proj, 'cat notes.txt; echo v2 >> notes.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('v9\n');
    expect(readFileSync(join(proj, 'notes.txt'), 'utf8')).toBe('v9\nv2\n');
  });
});

describe('two runs of one project on two slots', () => {
  const cmdA = 'echo A-change > src/f1.ts; echo A > newA.txt';

  it("neither run undoes the other's results, in either order of ending", async () => {
    // The run that changed files ends first, while a run that changed nothing (started after it) still runs.
    const proj = gitProject({ 'src/f1.ts': 'original\n' });
    const mark = startMarker();
    const a = run(proj, `${mark.touch}; ${cmdA}; sleep 1.5`);
    expect(await until(mark.started)).toBe(true);
    const b = run(proj, 'sleep 4');
    const [ra, rb] = await Promise.all([a, b]);
    expect([ra.exitCode, rb.exitCode]).toEqual([0, 0]);
    expect(files(proj)).toEqual({ 'src/f1.ts': 'A-change\n', 'newA.txt': 'A\n' });
    expect(rb.stderr).toMatch(/0 files back, 0 conflicts\n/);
    // The run that changed files ends first, while a run that changed nothing (started before it) still runs.
    const proj2 = gitProject({ 'src/f1.ts': 'original\n' });
    const mark2 = startMarker();
    const early = run(proj2, `${mark2.touch}; sleep 4`);
    expect(await until(mark2.started)).toBe(true);
    const late = await run(proj2, cmdA);
    expect(files(proj2)).toEqual({ 'src/f1.ts': 'A-change\n', 'newA.txt': 'A\n' });
    expect([late.exitCode, (await early).exitCode]).toEqual([0, 0]);
    expect(files(proj2)).toEqual({ 'src/f1.ts': 'A-change\n', 'newA.txt': 'A\n' });
  });

  it("two runs that change the same file: the second is a conflict, the first's result stays", async () => {
    const proj = gitProject({ 'src/f1.ts': 'original\n' });
    const mark = startMarker();
    const slow = run(proj, `${mark.touch}; sleep 3; echo slow > src/f1.ts`);
    expect(await until(mark.started)).toBe(true);
    const fast = await run(proj, 'echo fast > src/f1.ts');
    const r = await slow;
    expect([fast.exitCode, r.exitCode]).toEqual([0, 0]);
    expect(readFileSync(join(proj, 'src/f1.ts'), 'utf8')).toBe('fast\n');
    expect(savedCopy(proj, r.stderr, 'src/f1.ts')).toBe('slow\n');
  });
});

describe('what comes back is exactly what the command changed', () => {
  it('`rm -rf src` on the worker never deletes ignored files here that were never sent', async () => {
    const proj = gitProject({
      '.gitignore': '*.log\nsrc/build/\ndist/\n',
      'src/a.ts': 'a\n',
      'src/app.log': 'log\n',
      'src/build/ignored.o': 'o\n',
      'dist/extra-local.js': 'x\n',
    });
    const r = await run(proj, 'rm -rf src');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(files(proj)).toEqual({
      '.gitignore': '*.log\nsrc/build/\ndist/\n',
      'src/app.log': 'log\n',
      'src/build/ignored.o': 'o\n',
      'dist/extra-local.js': 'x\n',
    });
    const again = await run(proj, 'true');
    expect(again.exitCode).toBe(0);
    expect(files(proj)['dist/extra-local.js']).toBe('x\n');
  });

  it('a deleted output does not come back from the worker; a newer local output is never overwritten', async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n' });
    const build = 'mkdir -p dist && cat src/a.ts > dist/out.js';
    expect((await run(proj, build)).exitCode).toBe(0);
    expect(readFileSync(join(proj, 'dist/out.js'), 'utf8')).toBe('a\n');
    rmSync(join(proj, 'dist'), { recursive: true });
    const r = await run(proj, 'true');
    expect(r.stderr).toMatch(/0 files back/);
    expect(existsSync(join(proj, 'dist'))).toBe(false);
    write(proj, 'dist/out.js', 'built here, newer\n');
    write(proj, 'src/a.ts', 'b\n');
    const rebuilt = await run(proj, build);
    expect(rebuilt.exitCode).toBe(0);
    expect(readFileSync(join(proj, 'dist/out.js'), 'utf8')).toBe('built here, newer\n');
    expect(savedCopy(proj, rebuilt.stderr, 'dist/out.js')).toBe('b\n');
  });

  it('an unchanged output is not brought back again, and a file the command did not touch is never replaced', async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n' });
    expect((await run(proj, 'mkdir -p dist && echo 1 > dist/out.js')).exitCode).toBe(0);
    write(proj, 'dist/out.js', 'changed here\n');
    utimesSync(join(proj, 'dist/out.js'), OLD, OLD);
    const r = await run(proj, 'echo other > other.txt');
    expect(r.stderr).toMatch(/1 file back \(6 B\), 0 conflicts/);
    expect(readFileSync(join(proj, 'dist/out.js'), 'utf8')).toBe('changed here\n');
  });

  it("Cargo's caches stay on the worker; the binary, its hard link and the test report come back", async () => {
    const proj = gitProject({ '.gitignore': 'target/\n', 'Cargo.toml': '[package]\nname = "x"\n' });
    const cmd = [
      'mkdir -p target/debug/deps target/debug/incremental/x-1 target/debug/.fingerprint/x-2 target/debug/build/x-3 target/x86_64-unknown-linux-gnu/release/deps',
      'echo bin > target/debug/deps/x-abc && ln target/debug/deps/x-abc target/debug/x && ln target/debug/x target/debug/x-copy',
      'echo inc > target/debug/incremental/x-1/s.bin && echo fp > target/debug/.fingerprint/x-2/f && echo b > target/debug/build/x-3/out',
      'echo cross > target/x86_64-unknown-linux-gnu/release/deps/y && echo report > target/report.txt',
    ].join(' && ');
    const r = await run(proj, cmd);
    expect(r.exitCode, r.stderr).toBe(0);
    const got = Object.keys(files(proj))
      .filter((p) => p.startsWith('target/'))
      .sort();
    expect(got).toEqual(['target/debug/x', 'target/debug/x-copy', 'target/report.txt']);
    expect(statSync(join(proj, 'target/debug/x')).ino).toBe(statSync(join(proj, 'target/debug/x-copy')).ino);
  });

  it("the command's new empty folder, symlink, mode and mtime come back as on the worker", async () => {
    const proj = gitProject({ 'run.sh': 'echo hi\n' });
    const r = await run(proj, 'mkdir -p out/empty && ln -s ../run.sh out/link && chmod 755 run.sh && touch -d 2024-01-02T03:04:05Z run.sh');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(join(proj, 'out/empty')).isDirectory()).toBe(true);
    expect(files(proj)['out/link']).toBe('<link>');
    expect(statSync(join(proj, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(join(proj, 'run.sh')).mtime.toISOString()).toBe('2024-01-02T03:04:05.000Z');
  });

  it('a symlink the command makes that leads out of the project is refused, and nothing is written through it here', async () => {
    const proj = gitProject({ 'a.txt': 'a\n', 'escape/keep.txt': 'k\n' });
    const name = `sparehand-victim-${process.pid}-${Date.now()}`;
    const r = await run(proj, `mkdir -p ../${name} && rm -rf escape && ln -s ../${name} escape && echo pwned > escape/v.txt && ln -s a.txt inside`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(proj, 'escape'))).toBe(false);
    expect(existsSync(join(proj, '..', name))).toBe(false);
    expect(r.stderr).toContain('sparehand: refused: escape was not brought back: it is a link to a place outside the project\n');
    expect(lstatSync(join(proj, 'inside')).isSymbolicLink()).toBe(true);
  });
});
