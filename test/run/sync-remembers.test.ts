// The sync remembers (issue 19): an ancestor per copy, so every run has the effect it has here — outputs deleted
// here come back rebuilt, the copies never conflict over their own outputs, each change is applied on its own.
// A real sshd, the real CLI, real projects (test/fixtures/projects: scopeguard with cargo, mitt with pnpm + tsc).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itNeedsRoot, unwritableFolder } from '../helpers/as-root.js';
import { clientId, projectKey } from '../../lib/run/project.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { nodeProject } from '../helpers/node-project.js';
import { files, gitProject, startMarker, until, write } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';
import { workerCargo } from '../helpers/worker-home.js';

const REPO_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));
const CARGO = workerCargo();
/** The cargo tests, skipped with a line where the worker's user has no cargo to run. */
const withCargo = 'profile' in CARGO ? it : it.skip;
if ('why' in CARGO) console.log(`sync-remembers: the cargo tests are skipped: ${CARGO.why}`);
let sshd: Sshd;
let wh: WorkerHome;
let pnpmDir: string;
beforeAll(async () => {
  // pnpm from the npm registry (the only one here), once; tsc from this repository's own devDependencies, copied where
  // the worker's user can read it (the clone may be in a folder only its owner can enter).
  pnpmDir = join(tempDir('sparehand-pnpm-'));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', pnpmDir, 'pnpm@9.15.9'], {
    stdio: 'ignore',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  cpSync(join(REPO_MODULES, 'typescript'), join(pnpmDir, 'node_modules', 'typescript'), { recursive: true });
  symlinkSync('../typescript/bin/tsc', join(pnpmDir, 'node_modules', '.bin', 'tsc'));
  // The worker's login profile puts them on the PATH its commands get.
  const owner = tempDir('sparehand-worker-home-');
  // Quoted: a temp folder's path may hold a space.
  writeFileSync(join(owner, '.profile'), `export PATH=${quote([join(pnpmDir, 'node_modules', '.bin')])}:"$PATH"\n${'profile' in CARGO ? CARGO.profile : ''}\n`);
  sshd = await startSshd({ home: owner });
  wh = workerHome([sshd], { slots: 2 });
}, 180_000);
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});
const run = (proj: string, cmd: string, h: WorkerHome = wh) => sparehand(['run', '--', cmd], { env: h.env, cwd: proj });

/** A git project holding a copy of the real project `name` (test/fixtures/projects). */
function realProject(name: string): string {
  const dir = gitProject({});
  cpSync(join(FIXTURES, 'projects', name), dir, { recursive: true });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  return dir;
}

describe('outputs deleted here come back', () => {
  it('a pnpm build after rm -rf dist (mitt): dist/ is built again on the worker and comes back', async () => {
    const proj = realProject('mitt');
    const first = await run(proj, 'pnpm install --frozen-lockfile && pnpm build');
    expect(first.exitCode, first.stderr).toBe(0);
    expect(existsSync(join(proj, 'dist', 'index.js'))).toBe(true);
    rmSync(join(proj, 'dist'), { recursive: true });
    const again = await run(proj, 'pnpm build');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readdirSync(join(proj, 'dist')).sort()).toEqual(['index.d.ts', 'index.js']);
    expect(again.stderr).toMatch(/, 0 conflicts\n/);
  });

  withCargo('cargo clean, then cargo build --release (scopeguard): the library comes back', async () => {
    const proj = realProject('scopeguard');
    expect((await run(proj, 'cargo build --release --offline')).exitCode).toBe(0);
    const lib = join(proj, 'target', 'release', 'libscopeguard.rlib');
    expect(existsSync(lib)).toBe(true);
    execFileSync('cargo', ['clean'], { cwd: proj, stdio: 'ignore' });
    expect(existsSync(join(proj, 'target'))).toBe(false);
    const r = await run(proj, 'cargo build --release --offline');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(lib)).toBe(true);
    expect(r.stderr).toMatch(/, 0 conflicts\n/);
  });

  it('an output missing here that the worker only touched (same bytes, no ancestor to say so) is fetched and comes back', async () => {
    const proj = gitProject({ '.gitignore': 'out/\n', 'src/a.txt': 'a\n' });
    expect((await run(proj, 'mkdir -p out && cp src/a.txt out/a.txt && echo b > out/b.txt')).exitCode).toBe(0);
    rmSync(join(proj, '.sparehand', 'sync'), { recursive: true });
    rmSync(join(proj, 'out', 'a.txt'));
    const r = await run(proj, 'touch out/a.txt');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(proj, 'out', 'a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('the copies never conflict with each other over their own outputs', () => {
  withCargo("two copies building the same crate (scopeguard): the second build replaces the first's outputs, no conflict", async () => {
    const proj = realProject('scopeguard');
    // Copy 0 is busy with a long run, so the first build goes to copy 1; the next build is on copy 0.
    const mark = startMarker();
    const busy = run(proj, `${mark.touch}; sleep 3`);
    expect(await until(mark.started)).toBe(true);
    const onOne = await run(proj, 'cargo build --release --offline');
    expect(onOne.exitCode, onOne.stderr).toBe(0);
    expect((await busy).exitCode).toBe(0);
    expect(existsSync(join(copyPath(wh, sshd.remoteDir, proj, 1), 'target', 'release', 'libscopeguard.rlib'))).toBe(true);
    const onZero = await run(proj, 'cargo build --release --offline');
    expect(onZero.exitCode, onZero.stderr).toBe(0);
    expect(onZero.stderr).not.toContain('conflict:');
    expect(onZero.stderr).toMatch(/, 0 conflicts\n/);
    const here = readFileSync(join(proj, 'target', 'release', 'libscopeguard.rlib'));
    expect(here.equals(readFileSync(join(copyPath(wh, sshd.remoteDir, proj, 0), 'target', 'release', 'libscopeguard.rlib')))).toBe(true);
  });

  it("a file of your own at an output's path is never replaced: a conflict", async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'a.txt': 'a\n' });
    write(proj, 'dist/out.js', 'yours\n');
    const r = await run(proj, 'mkdir -p dist && echo built > dist/out.js');
    expect(readFileSync(join(proj, 'dist', 'out.js'), 'utf8')).toBe('yours\n');
    expect(r.stderr).toContain('conflict: the command created dist/out.js, but a different dist/out.js is here; kept yours');
  });
});

describe('each change is applied or becomes a conflict on its own', () => {
  it("a folder here that cannot be written: its files are conflicts with the reason; everything else is applied; the exit status is the command's", async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n' });
    mkdirSync(join(proj, 'dist'));
    const dist = unwritableFolder(join(proj, 'dist'));
    try {
      const r = await run(proj, 'mkdir -p dist && echo x > dist/out.js && echo b > src/a.ts && echo n > new.txt; exit 7');
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain(`conflict: dist/out.js could not be written here (${dist.detail}); the worker's version is in .sparehand/conflicts/`);
      expect(readFileSync(join(proj, 'src/a.ts'), 'utf8')).toBe('b\n');
      expect(readFileSync(join(proj, 'new.txt'), 'utf8')).toBe('n\n');
    } finally {
      dist.undo();
    }
  });

  itNeedsRoot('an output folder on another file system (a mount in the project; needs root: mount): its files are copied into place', async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n' });
    mkdirSync(join(proj, 'dist'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', join(proj, 'dist')]);
    try {
      const r = await run(proj, 'mkdir -p dist/sub && echo x > dist/sub/out.js && echo b > src/a.ts');
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readFileSync(join(proj, 'dist', 'sub', 'out.js'), 'utf8')).toBe('x\n');
      expect(r.stderr).toMatch(/, 0 conflicts\n/);
    } finally {
      execFileSync('umount', [join(proj, 'dist')]);
    }
  });

  it("the project folder moved away during the run: nothing is written, not even sparehand's folder, and a line says where the results are", async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const mark = startMarker();
    const p = run(proj, `${mark.touch}; sleep 1.5; echo b > a.txt; echo n > new.txt`);
    expect(await until(mark.started)).toBe(true);
    const moved = `${proj}-moved`;
    renameSync(proj, moved);
    const r = await p;
    expect(r.exitCode).toBe(0);
    expect(existsSync(proj)).toBe(false);
    expect(existsSync(join(moved, 'new.txt'))).toBe(false);
    expect(r.stderr).toMatch(/nothing was written here: the project folder was moved or deleted during the run; it stays in the worker's copy \(w0:/);
  });

  it('a FIFO the command made is named, not made here', async () => {
    const proj = gitProject({ 'a.txt': 'a\n' });
    const r = await run(proj, 'mkfifo pipe');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('sparehand: not made here: pipe is a special file (a FIFO, socket or device) the command made on the worker\n');
    expect(existsSync(join(proj, 'pipe'))).toBe(false);
  });
});

describe('what is sent is what the project holds', () => {
  it('tracked files that match .gitignore are sent, also when the rule came after the commit', async () => {
    const proj = gitProject({ 'build/keep.txt': 'tracked\n', 'late.log': 'committed first\n', 'a.txt': 'a\n' });
    execFileSync('git', ['add', '-A'], { cwd: proj });
    writeFileSync(join(proj, '.gitignore'), 'build/\n*.log\n');
    write(proj, 'build/untracked.o', 'not sent\n');
    const r = await sparehand(['run', '--quiet', '--', 'cat build/keep.txt late.log; test -e build/untracked.o || echo no-o'], { env: wh.env, cwd: proj });
    expect(r.stdout, r.stderr).toBe('tracked\ncommitted first\nno-o\n');
  });

  it('two machines with the same host name and project path get copies of their own (a random id each, not the host name)', async () => {
    const other = workerHome([sshd], { slots: 2 });
    const proj = gitProject({ 'a.txt': 'a\n' });
    expect((await run(proj, 'true')).exitCode).toBe(0);
    expect((await run(proj, 'true', other)).exitCode).toBe(0);
    const mine = projectKey(proj, clientId({ home: wh.home, env: wh.env }, proj));
    const theirs = projectKey(proj, clientId({ home: other.home, env: other.env }, proj));
    expect(mine).not.toBe(theirs);
    expect(existsSync(join(sshd.remoteDir, mine))).toBe(true);
    expect(existsSync(join(sshd.remoteDir, theirs))).toBe(true);
    await other.close();
  });
});

describe('dependencies on the worker are verified, and worker reset wipes a project', () => {
  it('a dependency deleted on the worker is installed again; `worker reset` removes the copies and the next run starts afresh', async () => {
    const proj = nodeProject();
    expect((await run(proj, 'npm test')).exitCode).toBe(0);
    const copy = copyPath(wh, sshd.remoteDir, proj);
    rmSync(join(copy, 'node_modules', 'tiny'), { recursive: true });
    const r = await run(proj, 'npm test');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('changed since their install (node_modules); installing them again');
    const reset = await sparehand(['worker', 'reset', 'w0'], { env: wh.env, cwd: proj });
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stderr).toContain(`w0: removed ~/.cache/sparehand/work/${basename(join(copy, '..'))}`);
    expect(existsSync(join(copy, '..'))).toBe(false);
    const fresh = await run(proj, 'npm test');
    expect(fresh.exitCode).toBe(0);
    expect(fresh.stderr).toContain('installing dependencies on the worker: npm ci');
  });
});

describe('losing the ancestor costs conflicts, never data', () => {
  it("with the ancestor gone, an output you changed here is kept, the worker's saved", async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'a.txt': 'a\n' });
    expect((await run(proj, 'mkdir -p dist && echo 1 > dist/o.js')).exitCode).toBe(0);
    rmSync(join(proj, '.sparehand', 'sync'), { recursive: true });
    writeFileSync(join(proj, 'dist', 'o.js'), 'mine\n');
    const r = await run(proj, 'echo 2 > dist/o.js');
    expect(readFileSync(join(proj, 'dist', 'o.js'), 'utf8')).toBe('mine\n');
    expect(r.stderr).toMatch(/conflict: the command created dist\/o\.js, but a different|conflict: dist\/o\.js changed here/);
    expect(statSync(join(proj, 'dist', 'o.js')).size).toBe(5);
  });
});

void files;
