// Build outputs have the effect they have here (issue 36 "keep what holds"): an output deleted here comes back
// rebuilt — after `rm -rf`, after `git clean -fdx` (which takes sparehand's own folder with it), on another slot,
// with `make` (which rebuilds only what is missing or older than its sources) — an output edited here before a
// build is rewritten by the build exactly as a build here rewrites it (and left alone where make would leave it),
// and an edit made here during a run is kept. A real sshd with two slots, the README set-up, real make.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { OLD, gitProject, startMarker, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';

let sshd: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  sshd = await startSshd();
  wh = workerHome([sshd], { slots: 2 });
});
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});
const run = (proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: wh.env, cwd: proj });

/** Runs `cmd` while another run holds slot 0, so that it lands in slot 1. */
async function onSlotOne(proj: string, cmd: string) {
  const mark = startMarker();
  const busy = run(proj, `${mark.touch}; sleep 4`);
  expect(await until(mark.started)).toBe(true);
  const r = await run(proj, cmd);
  expect((await busy).exitCode).toBe(0);
  return r;
}

const MAKEFILE = 'build/out.txt: src/in.txt\n\tmkdir -p build\n\ttr a-z A-Z < src/in.txt > build/out.txt\n';
/** `proj` with its files committed (so that `git clean -fdx` leaves them). */
function committed(proj: string): string {
  execFileSync('git', ['add', '-A'], { cwd: proj });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], { cwd: proj });
  return proj;
}
/** A make project (as cJSON's): `make` writes build/out.txt from src/in.txt when it is missing or older. */
const makeProject = () => committed(gitProject({ '.gitignore': 'build/\n', Makefile: MAKEFILE, 'src/in.txt': 'hello\n' }));
/** A build that writes its output every time (as tsc, esbuild, `pnpm build`). */
const BUILD = 'mkdir -p dist && tr a-z A-Z < src/in.txt > dist/out.txt';
const buildProject = () => committed(gitProject({ '.gitignore': 'dist/\n', 'src/in.txt': 'hello\n' }));
const read = (proj: string, p: string) => readFileSync(join(proj, p), 'utf8');

/** The same command run here in a twin of `proj`'s files (a local build, to compare with). */
function hereTwin(files: Record<string, string>, before: (dir: string) => void, cmd: string): string {
  const dir = gitProject(files);
  before(dir);
  execFileSync('bash', ['-c', cmd], { cwd: dir, stdio: 'ignore' });
  return dir;
}

describe('an output deleted here comes back', { timeout: 120_000 }, () => {
  it('make after rm -rf build: built again there and back (holds already)', async () => {
    const proj = makeProject();
    expect((await run(proj, 'make')).exitCode).toBe(0);
    expect(read(proj, 'build/out.txt')).toBe('HELLO\n');
    rmSync(join(proj, 'build'), { recursive: true });
    const r = await run(proj, 'make');
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'mkdir -p build\ntr a-z A-Z < src/in.txt > build/out.txt\n']);
    expect(read(proj, 'build/out.txt')).toBe('HELLO\n');
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  // (git ls-files names the ignored files that are here: what git clean deleted is not kept out of rsync's way, so
  // rsync deletes it there too, and the ancestor it took with it is not needed.)
  it("make after git clean -fdx, which deletes sparehand's own folder too: built again there and back, as make does here (holds already)", async () => {
    const proj = makeProject();
    expect((await run(proj, 'make')).exitCode).toBe(0);
    execFileSync('git', ['clean', '-fdxq'], { cwd: proj });
    expect(existsSync(join(proj, 'build'))).toBe(false);
    const r = await run(proj, 'make');
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'mkdir -p build\ntr a-z A-Z < src/in.txt > build/out.txt\n']);
    expect(read(proj, 'build/out.txt')).toBe('HELLO\n');
  });

  it('a build that writes every time, after git clean -fdx: back (holds already)', async () => {
    const proj = buildProject();
    expect((await run(proj, BUILD)).exitCode).toBe(0);
    execFileSync('git', ['clean', '-fdxq'], { cwd: proj });
    const r = await run(proj, BUILD);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(read(proj, 'dist/out.txt')).toBe('HELLO\n');
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  it('make on another slot, whose copy holds an older build than the one here: the build of the sources here comes back (holds already)', async () => {
    const proj = makeProject();
    // Slot 0 builds HELLO, then slot 1 builds HELLO too.
    expect((await run(proj, 'make')).exitCode).toBe(0);
    const one = await onSlotOne(proj, 'make');
    expect(one.exitCode, one.stderr).toBe(0);
    expect(read(join(copyPath(wh, sshd.remoteDir, proj, 1)), 'build/out.txt')).toBe('HELLO\n');
    // The source changes here; slot 0 builds it: WORLD here, slot 1 still holds HELLO.
    writeFileSync(join(proj, 'src', 'in.txt'), 'world\n');
    expect((await run(proj, 'make')).exitCode).toBe(0);
    expect(read(proj, 'build/out.txt')).toBe('WORLD\n');
    // Deleted here, made on slot 1: WORLD again (as make here would make it), not slot 1's HELLO.
    rmSync(join(proj, 'build'), { recursive: true });
    const r = await onSlotOne(proj, 'make');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(read(proj, 'build/out.txt')).toBe('WORLD\n');
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  it('rm -rf dist, then the build lands on a slot that never built it: back (holds already)', async () => {
    const proj = buildProject();
    expect((await run(proj, BUILD)).exitCode).toBe(0);
    rmSync(join(proj, 'dist'), { recursive: true });
    const r = await onSlotOne(proj, BUILD);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(read(proj, 'dist/out.txt')).toBe('HELLO\n');
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });
});

const TWO = 'all: build/a.txt build/b.txt\nbuild/%.txt: src/%.txt\n\tmkdir -p build\n\ttr a-z A-Z < $< > $@\n';
/** A make project with two outputs in one ignored folder (so that deleting one leaves the folder here). */
const twoProject = () => committed(gitProject({ '.gitignore': 'build/\n', Makefile: TWO, 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' }));

describe('an output deleted here comes back after a run that ended badly', { timeout: 120_000 }, () => {
  for (const how of ['killed', 'timed out'] as const) {
    it(`one of two outputs deleted here, rebuilt by a run that was ${how} before its results came back: the next make brings it back (holds already)`, async () => {
      const proj = twoProject();
      expect((await run(proj, 'make -s')).exitCode).toBe(0);
      expect([read(proj, 'build/a.txt'), read(proj, 'build/b.txt')]).toEqual(['A\n', 'B\n']);
      rmSync(join(proj, 'build', 'a.txt'));
      const mark = startMarker();
      const p = sparehand(['run', ...(how === 'timed out' ? ['--timeout', '4s'] : []), '--', `make -s && ${mark.touch} && sleep 30`], {
        env: wh.env,
        cwd: proj,
      });
      expect(await until(mark.started)).toBe(true);
      expect(read(copyPath(wh, sshd.remoteDir, proj), 'build/a.txt')).toBe('A\n');
      if (how === 'killed') p.kill('SIGKILL');
      const ended = await p;
      expect(ended.exitCode).not.toBe(0);
      const r = await run(proj, 'make -s');
      expect(r.exitCode, r.stderr).toBe(0);
      expect([read(proj, 'build/a.txt'), read(proj, 'build/b.txt')]).toEqual(['A\n', 'B\n']);
    });
  }

  // DOES NOT HOLD YET (it.fails: this test fails today, and passes once it holds; then make it an `it`). With the
  // ancestors gone and the output's folder still here (git ls-files names `build/` whole, so rsync leaves the
  // copy's build/a.txt there), nothing tells the copy that a.txt was deleted here: make finds it up to date and it
  // never comes back. No data is lost (b.txt and every edit stay), but a build here would make a.txt again.
  // `git clean -fdx` does not lead here (it deletes build/ too, see above); deleting .sparehand/ alone does.
  it.fails("one of two outputs deleted here, with sparehand's folder deleted too (its ancestors gone): the next make brings it back", async () => {
    const proj = twoProject();
    expect((await run(proj, 'make -s')).exitCode).toBe(0);
    rmSync(join(proj, 'build', 'a.txt'));
    rmSync(join(proj, '.sparehand'), { recursive: true });
    const r = await run(proj, 'make -s');
    expect(r.exitCode, r.stderr).toBe(0);
    expect([existsSync(join(proj, 'build', 'a.txt')) && read(proj, 'build/a.txt'), read(proj, 'build/b.txt')]).toEqual(['A\n', 'B\n']);
  });
});

describe('an output edited here before a build is rewritten as a build here rewrites it', { timeout: 120_000 }, () => {
  it('a build that writes every time rewrites it, also with the very bytes it wrote last time (holds already)', async () => {
    const proj = buildProject();
    expect((await run(proj, BUILD)).exitCode).toBe(0);
    writeFileSync(join(proj, 'dist', 'out.txt'), 'mine\n');
    const r = await run(proj, BUILD);
    expect(r.exitCode, r.stderr).toBe(0);
    const twin = hereTwin({ 'src/in.txt': 'hello\n', 'dist/out.txt': 'mine\n' }, () => {}, BUILD);
    expect(read(proj, 'dist/out.txt')).toBe(read(twin, 'dist/out.txt'));
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  it('on another slot too, which never held the output: the edit is sent there first and the build rewrites it', async () => {
    const proj = buildProject();
    expect((await run(proj, BUILD)).exitCode).toBe(0);
    writeFileSync(join(proj, 'dist', 'out.txt'), 'mine\n');
    const r = await onSlotOne(proj, BUILD);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(read(proj, 'dist/out.txt')).toBe('HELLO\n');
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  it('make on another slot, which never held the output edited here: left as it is, as make leaves it, with no conflict', async () => {
    const proj = makeProject();
    expect((await run(proj, 'make')).exitCode).toBe(0);
    writeFileSync(join(proj, 'build', 'out.txt'), 'mine\n');
    const r = await onSlotOne(proj, 'make');
    expect([r.exitCode, r.stdout, read(proj, 'build/out.txt')], r.stderr).toEqual([0, "make: 'build/out.txt' is up to date.\n", 'mine\n']);
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  it('make leaves an output edited here (newer than its source) as it is, as make does here (holds already)', async () => {
    const proj = makeProject();
    expect((await run(proj, 'make')).exitCode).toBe(0);
    writeFileSync(join(proj, 'build', 'out.txt'), 'mine\n');
    const r = await run(proj, 'make');
    const twin = hereTwin(
      { Makefile: MAKEFILE, 'src/in.txt': 'hello\n' },
      (dir) => {
        execFileSync('make', ['-s'], { cwd: dir });
        writeFileSync(join(dir, 'build', 'out.txt'), 'mine\n');
      },
      'make',
    );
    expect([r.exitCode, read(proj, 'build/out.txt')], r.stderr).toEqual([0, read(twin, 'build/out.txt')]);
    expect(r.stdout).toBe("make: 'build/out.txt' is up to date.\n");
  });

  it('make rewrites an output edited here when its source changed after it (holds already)', async () => {
    const proj = makeProject();
    expect((await run(proj, 'make')).exitCode).toBe(0);
    // Edited with an old date, then the source changed: older than its source, so make makes it again.
    writeFileSync(join(proj, 'build', 'out.txt'), 'mine\n');
    utimesSync(join(proj, 'build', 'out.txt'), OLD, OLD);
    writeFileSync(join(proj, 'src', 'in.txt'), 'again\n');
    const r = await run(proj, 'make');
    expect([r.exitCode, read(proj, 'build/out.txt')], r.stderr).toEqual([0, 'AGAIN\n']);
  });
});

describe('an edit made here during a run is kept', { timeout: 120_000 }, () => {
  it('the build rewrites an output that is edited here meanwhile: the edit stays, the build is kept aside (holds already)', async () => {
    const proj = buildProject();
    expect((await run(proj, BUILD)).exitCode).toBe(0);
    const mark = startMarker();
    const p = run(proj, `${mark.touch}; sleep 1.5; echo rebuilt > dist/out.txt`);
    expect(await until(mark.started)).toBe(true);
    writeFileSync(join(proj, 'dist', 'out.txt'), 'during\n');
    const r = await p;
    expect(r.exitCode).toBe(0);
    expect(read(proj, 'dist/out.txt')).toBe('during\n');
    const saved = /conflict: [^\n]*dist\/out\.txt[^\n]* in (\.sparehand\/conflicts\/\S+)\n/.exec(r.stderr);
    expect(saved, r.stderr).not.toBeNull();
    expect(read(proj, saved?.[1] ?? '')).toBe('rebuilt\n');
  });
});
