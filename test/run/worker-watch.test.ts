// The worker's watcher of a copy (issue 39, lib/remote/worker/watch.pl): a warm run on a copy nothing touched
// does not walk it, and the report after the command looks only where the watcher saw events. Each test attacks
// it: a change the watcher must see (another process between runs, a process the command left, a folder made and
// filled at once, a folder moved, a watcher killed), and the run must bring back, or restore, exactly what is there.
// A real sshd, the real CLI; the worker's processes run as the worker user.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLog } from '../../lib/run/run-log.js';
import { sparehand } from '../helpers/cli.js';
import { gitProject, until } from '../helpers/project.js';
import { asWorker } from '../helpers/sshd.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';

const shared = sharedWorker();
const linux = process.platform === 'linux' && /^(x64|arm64)$/.test(process.arch);
const run = (proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: shared.wh.env, cwd: proj });
const sent = () => readLog({ home: shared.wh.home, env: shared.wh.env }).at(-1)?.sent;
const git = (proj: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: proj, stdio: 'ignore' });
/** A shell command run on the worker's side as the worker user (another process than sparehand's). */
const asWorkerUser = (script: string) => void asWorker(['sh', '-c', script]);
const copyOf = (proj: string) => copyPath(shared.wh, shared.sshd.remoteDir, proj);
const watchBase = (proj: string) => join(dirname(copyOf(proj)), `${basename(copyOf(proj))}.watch`);
/** Whether the copy's watcher lives: it holds its lock. */
const watching = (proj: string) => spawnSync('flock', ['-n', `${watchBase(proj)}.lock`, 'true']).status === 1;
const answer = (proj: string) => (existsSync(`${watchBase(proj)}.ans`) ? readFileSync(`${watchBase(proj)}.ans`, 'utf8') : '');

/** A committed project, run until its copy has a watcher that has answered once (which no run trusts). */
async function watchedProject(files: Record<string, string>): Promise<string> {
  const proj = gitProject(files);
  git(proj, 'add', '-A');
  git(proj, 'commit', '-qm', 'start');
  for (let i = 0; i < 3; i++) expect((await run(proj, 'true')).exitCode).toBe(0);
  expect(watching(proj)).toBe(true);
  return proj;
}

describe.runIf(linux)("the worker's watcher of a copy", () => {
  it('is asked by every warm run, and a run on a copy nothing touched sends nothing', async () => {
    const proj = await watchedProject({ 'a.txt': 'a\n', 'src/d1/b.txt': 'b\n' });
    for (let i = 0; i < 2; i++) {
      const before = answer(proj);
      expect((await run(proj, 'cat a.txt')).stdout).toBe('a\n');
      expect(sent()).toBe('skipped');
      // Asked before the command and after it: a new answer each run, and it saw nothing.
      expect(answer(proj)).not.toBe(before);
      expect(answer(proj)).toMatch(/^[0-9a-f]+\nok\n$/);
    }
  });

  it('sees what another process changed in the copy between runs: an edit, a deletion, a folder made and filled', async () => {
    const proj = await watchedProject({ 'a.txt': 'here\n', 'src/d1/b.txt': 'b\n', 'src/d2/c.txt': 'c\n' });
    const copy = copyOf(proj);
    asWorkerUser(`echo worker > ${join(copy, 'src/d1/b.txt')}`);
    expect((await run(proj, 'cat src/d1/b.txt')).stdout).toBe('b\n');
    expect(sent()).not.toBe('skipped');
    asWorkerUser(`rm ${join(copy, 'src/d2/c.txt')}`);
    expect((await run(proj, 'cat src/d2/c.txt')).stdout).toBe('c\n');
    asWorkerUser(`mkdir -p ${join(copy, 'src/new/deep')} && echo stray > ${join(copy, 'src/new/deep/x.txt')}`);
    expect((await run(proj, 'test -e src/new/deep/x.txt && echo stray there || echo gone')).stdout).toBe('gone\n');
    // And a warm run after those sends nothing again.
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect(sent()).toBe('skipped');
  });

  it('brings back what the command made in folders it made and filled at once, and what it deleted and moved', async () => {
    const proj = await watchedProject({ 'a.txt': 'a\n', 'src/d1/b.txt': 'b\n', 'src/d2/c.txt': 'c\n', 'src/d3/e.txt': 'e\n' });
    const made = 'for i in $(seq 1 40); do mkdir -p gen/$i/x/y; echo $i > gen/$i/x/y/f.txt; done';
    expect((await run(proj, `${made}; rm src/d2/c.txt; echo edited > src/d1/b.txt`)).exitCode).toBe(0);
    for (let i = 1; i <= 40; i++) expect(readFileSync(join(proj, `gen/${i}/x/y/f.txt`), 'utf8')).toBe(`${i}\n`);
    expect(existsSync(join(proj, 'src/d2/c.txt'))).toBe(false);
    expect(readFileSync(join(proj, 'src/d1/b.txt'), 'utf8')).toBe('edited\n');
    // A folder moved (the watcher's paths below it would be wrong: it stops, and the report walks).
    expect((await run(proj, 'mv src/d3 src/moved && echo more > src/moved/g.txt')).exitCode).toBe(0);
    expect(readFileSync(join(proj, 'src/moved/e.txt'), 'utf8')).toBe('e\n');
    expect(readFileSync(join(proj, 'src/moved/g.txt'), 'utf8')).toBe('more\n');
    expect(existsSync(join(proj, 'src/d3'))).toBe(false);
    // The runs after start another watcher and miss nothing meanwhile.
    expect((await run(proj, 'echo after > src/moved/e.txt')).exitCode).toBe(0);
    expect(readFileSync(join(proj, 'src/moved/e.txt'), 'utf8')).toBe('after\n');
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect(watching(proj)).toBe(true);
  });

  it('sees what a process the command left behind wrote after the command ended', async () => {
    const proj = await watchedProject({ 'a.txt': 'a\n', 'src/d1/b.txt': 'b\n' });
    // In a session of its own (the command's end does not stop it): writes a moment after the run ended. (The
    // command waits a moment: a process still in its group when it ends is stopped.)
    const late = `setsid sh -c 'sleep 2; mkdir -p src/late; echo late > src/late/l.txt; echo late > src/d1/b.txt' </dev/null >/dev/null 2>&1 & sleep 0.5`;
    expect((await run(proj, late)).exitCode).toBe(0);
    const copy = copyOf(proj);
    expect(await until(() => existsSync(join(copy, 'src/late/l.txt')) && readFileSync(join(copy, 'src/d1/b.txt'), 'utf8') === 'late\n')).toBe(true);
    // The next run sees that the copy is not what the last one left: what its command sees is this machine's.
    expect((await run(proj, 'cat src/d1/b.txt; test -e src/late/l.txt && echo there || echo none')).stdout).toBe('b\nnone\n');
    expect(sent()).not.toBe('skipped');
  });

  it("brings back the command's edit when the watcher's queue overflowed before it read it", async () => {
    const queue = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    const proj = await watchedProject({ 'a.txt': 'a\n', 'src/d1/b.txt': 'b\n', 'src/d2/c.txt': 'c\n' });
    // The command stops the watcher (the same user may), makes more events than its queue holds (a file made and
    // closed: two each), edits a file, and lets it go on: the edit's event is the one the kernel dropped.
    const flood = `perl -e 'for (1 .. ${queue}) { open(my $f, ">", "src/d1/f$_") or die }'`;
    const cmd = `w=$(cat ../$(basename "$PWD").watch.pid); kill -STOP $w; ${flood}; echo edited > src/d2/c.txt; kill -CONT $w`;
    expect((await run(proj, cmd)).exitCode).toBe(0);
    expect(readFileSync(join(proj, 'src/d2/c.txt'), 'utf8')).toBe('edited\n');
    expect(existsSync(join(proj, `src/d1/f${queue}`))).toBe(true);
  });

  it('walks when the watcher was killed, and misses nothing changed meanwhile', async () => {
    const proj = await watchedProject({ 'a.txt': 'a\n', 'src/d1/b.txt': 'b\n' });
    const pid = Number(readFileSync(`${watchBase(proj)}.pid`, 'utf8'));
    process.kill(pid, 'SIGKILL');
    expect(await until(() => !watching(proj))).toBe(true);
    asWorkerUser(`echo worker > ${join(copyOf(proj), 'src/d1/b.txt')}`);
    expect((await run(proj, 'cat src/d1/b.txt')).stdout).toBe('b\n');
    expect(sent()).not.toBe('skipped');
    // One that hangs (stopped, so it never answers) is as good as none.
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect((await run(proj, 'true')).exitCode).toBe(0);
    const hung = Number(readFileSync(`${watchBase(proj)}.pid`, 'utf8'));
    process.kill(hung, 'SIGSTOP');
    try {
      asWorkerUser(`echo again > ${join(copyOf(proj), 'src/d1/b.txt')}`);
      expect((await run(proj, 'cat src/d1/b.txt')).stdout).toBe('b\n');
      expect(sent()).not.toBe('skipped');
    } finally {
      spawnSync('kill', ['-CONT', String(hung)]);
    }
  });
});
