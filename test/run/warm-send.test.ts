// A warm run sends nothing when nothing changed (issue 28, lib/send/warm-send.ts), and never misses a change:
// each test edits behind the mechanism's back, here or in the worker's copy, and the next run must see it.
// A real sshd, the real CLI, and the watcher (lib/watch/: runs after the first two ask it; warm-send-walk.test.ts
// runs them all again without).
import '../helpers/watch-on-first.js';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLog } from '../../lib/run/run-log.js';
import { sparehand } from '../helpers/cli.js';
import { gitProject, startMarker, until, write } from '../helpers/project.js';
import { tempDir } from '../helpers/context.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';
import { stopWatchers, watcherPid, watchersOf } from '../watch/helpers.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { canWatch } from '../../lib/watch/journal.js';

export const shared = sharedWorker();
/** Every project a run was made in: their watchers are stopped when the file ends. */
const projects = new Set<string>();
afterAll(() => stopWatchers(projects));
const run = (proj: string, cmd: string, env: NodeJS.ProcessEnv = {}) => {
  projects.add(proj);
  return sparehand(['run', '--', cmd], { env: { ...shared.wh.env, ...env }, cwd: proj });
};
const sent = () => readLog({ home: shared.wh.home, env: shared.wh.env }).at(-1)?.sent;
/** Whether the last run logged that it sent nothing. */
const skipped = () => sent() === 'skipped';
const git = (proj: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: proj, stdio: 'ignore' });

/** A committed project, run twice so that its fingerprint is kept. */
async function warmProject(files: Record<string, string>, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const proj = gitProject(files);
  git(proj, 'add', '-A');
  git(proj, 'commit', '-qm', 'start');
  for (let i = 0; i < 2; i++) expect((await run(proj, 'true', env)).exitCode).toBe(0);
  return proj;
}

describe('a warm run', () => {
  it('sends nothing when nothing changed, and the command sees the project', async () => {
    const proj = await warmProject({ 'a.txt': 'one\n', 'src/b.txt': 'two\n', 'new.txt': 'untracked\n' });
    const r = await run(proj, 'cat a.txt src/b.txt new.txt');
    expect(r.stdout).toBe('one\ntwo\nuntracked\n');
    expect(skipped()).toBe(true);
    // A command that writes brings it back; the run after still sends nothing, and sees what it wrote.
    expect((await run(proj, 'echo built > out.txt && echo changed > a.txt')).exitCode).toBe(0);
    expect(readFileSync(join(proj, 'out.txt'), 'utf8')).toBe('built\n');
    const again = await run(proj, 'cat a.txt out.txt');
    expect(again.stdout).toBe('changed\nbuilt\n');
    expect(skipped()).toBe(true);
  });

  it('sends a few changed files in its own session, no rsync: an edit, a new file, a deletion', async () => {
    const proj = await warmProject({ 'a.txt': 'one\n', 'src/b.txt': 'two\n', 'src/c.txt': 'three\n' });
    writeFileSync(join(proj, 'a.txt'), 'edited\n');
    write(proj, 'src/new.txt', 'new\n');
    rmSync(join(proj, 'src', 'c.txt'));
    const r = await run(proj, 'cat a.txt src/new.txt; ls src');
    expect(r.stdout).toBe('edited\nnew\nb.txt\nnew.txt\n');
    expect(sent()).toBe('own');
    expect((await sparehand(['log', '-n', '1'], { env: shared.wh.env, cwd: proj })).stdout).toMatch(/sync [^,]*\(the few changed files sent in the session\)/);
    // Its mtime as here, to the microsecond (a build that compares times sees what it would here).
    const mtime = statSync(join(proj, 'a.txt')).mtimeMs;
    const there = statSync(join(copyPath(shared.wh, shared.sshd.remoteDir, proj), 'a.txt')).mtimeMs;
    expect(Math.abs(there - mtime)).toBeLessThan(0.01);
    expect((await run(proj, 'cat a.txt')).stdout).toBe('edited\n');
    expect(skipped()).toBe(true);
  });

  it('sends a file edited with its mtime set back (same size)', async () => {
    const proj = await warmProject({ 'a.txt': 'one\n' });
    const { mtime } = statSync(join(proj, 'a.txt'));
    writeFileSync(join(proj, 'a.txt'), 'two\n');
    utimesSync(join(proj, 'a.txt'), mtime, mtime);
    const r = await run(proj, 'cat a.txt');
    expect(r.stdout).toBe('two\n');
    expect(skipped()).toBe(false);
  });

  it('sends what was created, deleted and renamed between runs, and a new empty folder', async () => {
    const proj = await warmProject({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    write(proj, 'made.txt', 'made\n');
    rmSync(join(proj, 'b.txt'));
    renameSync(join(proj, 'c.txt'), join(proj, 'd.txt'));
    const r = await run(proj, 'ls; mkdir -p never');
    expect(r.stdout.split('\n').filter((l) => l.endsWith('.txt'))).toEqual(['a.txt', 'd.txt', 'made.txt']);
    execFileSync('mkdir', [join(proj, 'empty')]);
    rmSync(join(proj, 'never'), { recursive: true, force: true });
    expect((await run(proj, 'test -d empty && echo there')).stdout).toBe('there\n');
  });

  it("restores the worker's copy when it was changed outside a run", async () => {
    const proj = await warmProject({ 'a.txt': 'here\n', 'src/b.txt': 'b\n' });
    const copy = copyPath(shared.wh, shared.sshd.remoteDir, proj);
    writeFileSync(join(copy, 'a.txt'), 'worker\n');
    expect((await run(proj, 'cat a.txt')).stdout).toBe('here\n');
    expect(skipped()).toBe(false);
    // A file deleted there, with nothing else touched (its folder's ctime says so).
    expect((await run(proj, 'true')).exitCode).toBe(0);
    rmSync(join(copy, 'src', 'b.txt'));
    expect((await run(proj, 'cat src/b.txt')).stdout).toBe('b\n');
    // Changed the moment the run here ended (the worker's side may still be finishing): seen all the same.
    for (let i = 0; i < 5; i++) {
      expect((await run(proj, 'true')).exitCode).toBe(0);
      writeFileSync(join(copy, 'a.txt'), `late ${i}\n`);
      expect((await run(proj, 'cat a.txt')).stdout).toBe('here\n');
    }
  });

  it('sends what .git/info/exclude stops hiding', async () => {
    const proj = gitProject({ 'a.txt': 'a\n', 'local.cfg': 'x=1\n' });
    appendFileSync(join(proj, '.git', 'info', 'exclude'), 'local.cfg\n');
    git(proj, 'add', '-A');
    git(proj, 'commit', '-qm', 'start');
    for (let i = 0; i < 2; i++) await run(proj, 'true');
    expect((await run(proj, 'test -e local.cfg || echo absent')).stdout).toBe('absent\n');
    expect(skipped()).toBe(true);
    writeFileSync(join(proj, '.git', 'info', 'exclude'), '');
    expect((await run(proj, 'cat local.cfg')).stdout).toBe('x=1\n');
  });

  it('sends again once HEAD moved (a commit, a checkout)', async () => {
    const proj = await warmProject({ 'a.txt': 'main\n' });
    git(proj, 'commit', '-q', '--allow-empty', '-m', 'empty');
    await run(proj, 'true');
    expect(skipped()).toBe(false);
    git(proj, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(proj, 'a.txt'), 'other\n');
    git(proj, 'commit', '-qam', 'other');
    await run(proj, 'true');
    git(proj, 'checkout', '-q', '-');
    expect((await run(proj, 'cat a.txt')).stdout).toBe('main\n');
    expect(skipped()).toBe(false);
  });

  it('sends again after a run whose sync back had a conflict', async () => {
    const proj = await warmProject({ 'a.txt': 'start\n' });
    const mark = startMarker();
    const p = run(proj, `echo worker > a.txt; ${mark.touch}; sleep 1`);
    expect(await until(mark.started)).toBe(true);
    writeFileSync(join(proj, 'a.txt'), 'here\n');
    const r = await p;
    expect(r.stderr).toMatch(/conflict/);
    expect((await run(proj, 'cat a.txt')).stdout).toBe('here\n');
    expect(skipped()).toBe(false);
  });

  it('after a run that ended in a conflict, an edit that keeps size and mtime (cp -p) reaches the worker, and the next runs keep it', async () => {
    const proj = await warmProject({ '.gitignore': 'dist/\n', 'a.txt': 'aaaa\n' });
    write(proj, 'dist/o.js', 'yours\n');
    const c = await run(proj, 'mkdir -p dist && echo built > dist/o.js');
    expect(c.stderr).toContain('conflict: the command created dist/o.js');
    // A copy with the same size and mtime, as `cp -p` or `tar x` puts one in place: rsync's quick check sees nothing.
    const other = join(tempDir(), 'a.txt');
    writeFileSync(other, 'bbbb\n');
    const { mtime } = statSync(join(proj, 'a.txt'));
    utimesSync(other, mtime, mtime);
    execFileSync('cp', ['-p', other, join(proj, 'a.txt')]);
    expect((await run(proj, 'cat a.txt')).stdout).toBe('bbbb\n');
    expect((await run(proj, 'cat a.txt')).stdout).toBe('bbbb\n');
    expect((await run(proj, 'cat a.txt')).stdout).toBe('bbbb\n');
  });

  it('a project whose first run ended in a conflict: a cp -p edit after it reaches the worker', async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'a.txt': 'aaaa\n', 'dist/o.js': 'yours\n' });
    const c = await run(proj, 'mkdir -p dist && echo built > dist/o.js');
    expect(c.stderr).toContain('conflict: the command created dist/o.js');
    const { mtime } = statSync(join(proj, 'a.txt'));
    writeFileSync(join(proj, 'a.txt'), 'bbbb\n');
    utimesSync(join(proj, 'a.txt'), mtime, mtime);
    expect((await run(proj, 'cat a.txt')).stdout).toBe('bbbb\n');
    expect((await run(proj, 'cat a.txt')).stdout).toBe('bbbb\n');
  });

  it('sends again after a run that left a change there it did not bring back (a link out of the project)', async () => {
    const proj = await warmProject({ 'a.txt': 'a\n' });
    await run(proj, 'ln -s /etc/hostname out-link');
    expect((await run(proj, 'test -L out-link && echo there || echo gone')).stdout).toBe('gone\n');
  });

  it('sends a file edited here while the command ran there (one the command did not touch)', async () => {
    const proj = await warmProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const mark = startMarker();
    const p = run(proj, `echo out > out.txt; ${mark.touch}; sleep 1`);
    expect(await until(mark.started)).toBe(true);
    writeFileSync(join(proj, 'b.txt'), 'edited during the run\n');
    expect((await p).exitCode).toBe(0);
    expect((await run(proj, 'cat b.txt')).stdout).toBe('edited during the run\n');
    expect(skipped()).toBe(false);
  });

  it('sends again after a run in which sparehand was killed (SIGKILL), with what changed here meanwhile', async () => {
    const proj = await warmProject({ 'a.txt': 'a\n' });
    const mark = startMarker();
    const p = run(proj, `echo worker > a.txt; ${mark.touch}; sleep 5`);
    expect(await until(mark.started)).toBe(true);
    p.kill('SIGKILL');
    await p;
    writeFileSync(join(proj, 'b.txt'), 'made after the kill\n');
    // The worker's copy holds the killed command's a.txt, which never came back: the next run must send a.txt again.
    const r = await run(proj, 'cat a.txt b.txt');
    expect(r.stdout).toBe('a\nmade after the kill\n');
    expect(skipped()).toBe(false);
  });

  it('a process an earlier command left behind writes into the copy as the next run puts a file there: brought back, or the run after sends', async () => {
    const proj = await warmProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    // In a session of its own (the command's end does not stop it), it writes late.txt the moment b.txt holds the
    // edit sparehand puts there: after the worker said its copy is untouched, before the command.
    const poll = `perl -e 'for (1 .. 40000) { select(undef, undef, undef, 0.0005); open(my $h, "<", "b.txt") or next; next unless (<$h> // "") eq "edited\\n"; open(my $o, ">", "late.txt"); print $o "late\\n"; exit }'`;
    // (The command waits a moment: a process still in its group when it ends is stopped.)
    expect((await run(proj, `setsid ${poll} </dev/null >/dev/null 2>&1 & sleep 0.5`)).exitCode).toBe(0);
    writeFileSync(join(proj, 'b.txt'), 'edited\n');
    expect((await run(proj, 'cat b.txt')).stdout).toBe('edited\n');
    expect(sent()).toBe('own');
    const copy = copyPath(shared.wh, shared.sshd.remoteDir, proj);
    expect(await until(() => existsSync(join(copy, 'late.txt')))).toBe(true);
    // What the next command sees is what this machine holds.
    const here = existsSync(join(proj, 'late.txt')) ? readFileSync(join(proj, 'late.txt'), 'utf8') : 'none\n';
    expect((await run(proj, 'cat late.txt 2>/dev/null || echo none')).stdout).toBe(here);
  });

  it('sends again after a run without the sync back', async () => {
    const proj = await warmProject({ 'a.txt': 'a\n' });
    await sparehand(['run', '--no-sync-back', '--', 'echo worker > a.txt'], { env: shared.wh.env, cwd: proj });
    expect((await run(proj, 'cat a.txt')).stdout).toBe('a\n');
  });
});

const looked = () => readLog({ home: shared.wh.home, env: shared.wh.env }).at(-1)?.looked;

describe.runIf(process.env.SPAREHAND_WATCH === 'on' && canWatch({ SPAREHAND_WATCH: 'on' }))('a warm run with the watcher', () => {
  it('asks the watcher instead of looking at every file, and still sends an edit with its mtime put back', async () => {
    const proj = await warmProject({ 'a.txt': 'one\n', 'src/b.txt': 'two\n' });
    expect(watchersOf(proj)).toHaveLength(1);
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect(looked()).toBe('watched');
    expect(skipped()).toBe(true);
    const { mtime } = statSync(join(proj, 'src', 'b.txt'));
    writeFileSync(join(proj, 'src', 'b.txt'), 'TWO\n');
    utimesSync(join(proj, 'src', 'b.txt'), mtime, mtime);
    expect((await run(proj, 'cat src/b.txt')).stdout).toBe('TWO\n');
    expect(looked()).toBe('watched');
  });

  it('looks at every file again when the watcher was killed, and misses nothing changed meanwhile', async () => {
    const proj = await warmProject({ 'a.txt': 'one\n' });
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect(looked()).toBe('watched');
    for (const pid of watchersOf(proj)) process.kill(pid, 'SIGKILL');
    const { mtime } = statSync(join(proj, 'a.txt'));
    writeFileSync(join(proj, 'a.txt'), 'two\n');
    utimesSync(join(proj, 'a.txt'), mtime, mtime);
    expect((await run(proj, 'cat a.txt')).stdout).toBe('two\n');
    expect(looked()).toBe('walked');
    // A new watcher was started; two runs later it is asked again.
    await until(() => watchersOf(proj).length === 1);
    await run(proj, 'true');
    expect((await run(proj, 'cat a.txt')).stdout).toBe('two\n');
    expect(looked()).toBe('watched');
  });

  it('looks at every file again when what git ignores as a folder changed, and sends what is no longer ignored', async () => {
    const proj = await warmProject({ '.gitignore': 'gen/\n', 'gen/made.txt': 'generated\n', 'a.txt': 'a\n' });
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect(looked()).toBe('watched');
    writeFileSync(join(proj, '.gitignore'), '');
    expect((await run(proj, 'cat gen/made.txt')).stdout).toBe('generated\n');
    expect(looked()).toBe('walked');
  });
});

// A Mac's watcher (lib/watch/fsevents-watcher.ts) on this Linux machine: the CLI told it runs on a Mac, with a stand-in of
// the fsevents package (test/fixtures/fsevents-stand-in/: FSEvents' flags on Node's fs.watch, one per folder; SIGUSR1 makes
// it say FSEvents dropped events).
const MAC = { SPAREHAND_PLATFORM_HERE: 'darwin-arm64', SPAREHAND_FSEVENTS_MODULE: join(FIXTURES, 'fsevents-stand-in') };

describe.runIf(process.env.SPAREHAND_WATCH === 'on' && process.platform === 'linux')('a warm run with the macOS watcher (fsevents stood in for)', () => {
  it('asks it instead of looking at every file; once FSEvents said it dropped events, looks at every file and misses nothing', async () => {
    const proj = await warmProject({ 'a.txt': 'one\n', 'src/b.txt': 'two\n' }, MAC);
    expect(watchersOf(proj)).toHaveLength(1);
    // The FSEvents watcher (node), not the Perl one.
    expect(readlinkSync(`/proc/${watcherPid(proj)}/exe`)).toBe(readlinkSync(`/proc/${process.pid}/exe`));
    expect((await run(proj, 'true', MAC)).exitCode).toBe(0);
    expect(looked()).toBe('watched');
    expect(skipped()).toBe(true);
    const { mtime } = statSync(join(proj, 'src', 'b.txt'));
    writeFileSync(join(proj, 'src', 'b.txt'), 'TWO\n');
    utimesSync(join(proj, 'src', 'b.txt'), mtime, mtime);
    expect((await run(proj, 'cat src/b.txt', MAC)).stdout).toBe('TWO\n');
    expect(looked()).toBe('watched');
    // FSEvents says it dropped events; what changed meanwhile (an edit with its mtime put back) is not in the journal.
    process.kill(watcherPid(proj) as number, 'SIGUSR1');
    await until(() => readFileSync(join(proj, '.sparehand', 'watch', 'journal'), 'latin1').includes('\0!FSEvents dropped events'));
    const before = statSync(join(proj, 'a.txt')).mtime;
    writeFileSync(join(proj, 'a.txt'), 'ONE\n');
    utimesSync(join(proj, 'a.txt'), before, before);
    expect((await run(proj, 'cat a.txt src/b.txt', MAC)).stdout).toBe('ONE\nTWO\n');
    expect(looked()).toBe('walked');
    // A new one was started; two runs later it is asked again.
    await until(() => watchersOf(proj).length === 1);
    await run(proj, 'true', MAC);
    expect((await run(proj, 'cat a.txt', MAC)).stdout).toBe('ONE\n');
    expect(looked()).toBe('watched');
  });
});
