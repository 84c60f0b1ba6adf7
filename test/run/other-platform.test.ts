// A worker of another platform (issue 22): a real sshd, gcc and cargo on the worker making real ELF files, and this
// Linux machine playing a Mac through SPAREHAND_PLATFORM_HERE (docs/run.md "Mac laptop, Linux worker"). Nothing
// platform-specific comes back, one line names it, the rest comes back; the kept files survive the next runs;
// `worker fetch` brings them; chains that run what they build run whole; on one platform nothing changes (each test
// holds its one-platform counterpart).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeCodeOfFile } from '../../lib/platform/of-file.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { gitProject, write } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';
import { workerCargo } from '../helpers/worker-home.js';

const MAC = { SPAREHAND_PLATFORM_HERE: 'darwin-arm64' };
const machine = execFileSync('uname', ['-m'], { encoding: 'utf8' }).trim();
const LINUX = `Linux ${machine === 'x86_64' ? 'x86-64' : machine === 'aarch64' ? 'arm64' : machine}`;

const CARGO = workerCargo();
/** The cargo tests, skipped with a line where the worker's user has no cargo to run. */
const withCargo = 'profile' in CARGO ? it : it.skip;
if ('why' in CARGO) console.log(`other-platform: the cargo tests are skipped: ${CARGO.why}`);
let sshd: Sshd;
let wh: WorkerHome;
beforeAll(async () => {
  // The worker's login profile: cargo on its PATH, and a variable that only commands run there see.
  const owner = tempDir('sparehand-worker-home-');
  writeFileSync(join(owner, '.profile'), `${'profile' in CARGO ? CARGO.profile : ''}\nexport WHERE=worker\n`);
  sshd = await startSshd({ home: owner });
  wh = workerHome([sshd]);
}, 60_000);
afterAll(async () => {
  await wh?.close();
  await sshd?.stop();
});

const mac = (h: WorkerHome = wh) => ({ ...h.env, ...MAC });
const run = (proj: string, cmd: string, env: NodeJS.ProcessEnv = mac()) => sparehand(['run', '--', cmd], { env, cwd: proj });

/** A C project: make builds an object, a static and a shared library and a program, and writes a header and a report. */
function cProject(): string {
  return gitProject({
    '.gitignore': 'build/\n',
    'src/main.c': '#include <stdio.h>\n#include "../build/version.h"\nint util(void);\nint main(void){printf("%s %d\\n", VERSION, util());return 0;}\n',
    'src/util.c': 'int util(void){return 42;}\n',
    Makefile: [
      'build/app: build/main.o build/libutil.a build/libutil.so',
      '\tcc build/main.o build/libutil.a -o build/app',
      '\techo "built app" > build/report.txt',
      'build/version.h:',
      '\tmkdir -p build && echo \'#define VERSION "v1"\' > build/version.h',
      'build/main.o: src/main.c build/version.h',
      '\tcc -c src/main.c -o build/main.o',
      'build/util.o: src/util.c',
      '\tmkdir -p build && cc -fPIC -c src/util.c -o build/util.o',
      'build/libutil.a: build/util.o',
      '\tar rcs build/libutil.a build/util.o',
      'build/libutil.so: build/util.o',
      '\tcc -shared build/util.o -o build/libutil.so',
      '',
    ].join('\n'),
  });
}

/** Every file under `root` (not .git, not .sparehand) that is native code. */
function nativeHere(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.git' && e.name !== '.sparehand') walk(p);
      } else if (e.isFile() && nativeCodeOfFile(p)) out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

const BINARIES = ['build/app', 'build/libutil.a', 'build/libutil.so', 'build/main.o', 'build/util.o'];

describe('a Linux worker, a Mac here', () => {
  it('make: its executables, libraries and objects stay on the worker, one line names them; the header and the report come back; your own build is never replaced (on one platform, all comes back)', async () => {
    const proj = cProject();
    write(proj, 'build/app', 'the Mac build of app\n');
    const r = await run(proj, 'make');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `sparehand: 5 ${LINUX} binaries kept on the worker (they do not run here): build/app, build/libutil.a, build/libutil.so and 2 more; \`sparehand worker fetch build\` brings them\n`,
    );
    expect(r.stderr).toMatch(/, 2 files back \(\d+ B\), 0 conflicts\n/);
    expect(nativeHere(proj)).toEqual([]);
    expect(readFileSync(join(proj, 'build', 'version.h'), 'utf8')).toBe('#define VERSION "v1"\n');
    expect(readFileSync(join(proj, 'build', 'report.txt'), 'utf8')).toBe('built app\n');
    expect(readFileSync(join(proj, 'build', 'app'), 'utf8')).toBe('the Mac build of app\n');
    const copy = copyPath(wh, sshd.remoteDir, proj);
    for (const b of BINARIES) expect(nativeCodeOfFile(join(copy, b)), b).toMatchObject({ format: 'ELF', os: 'linux' });
    // One platform: the same build brings everything back, as it always did.
    const same = cProject();
    const s = await run(same, 'make', wh.env);
    expect(s.exitCode, s.stderr).toBe(0);
    expect(s.stderr).not.toContain('kept on the worker');
    expect(nativeHere(same)).toEqual(BINARIES);
    expect((await execa(join(same, 'build', 'app'))).stdout).toBe('v1 42');
  });

  it('the next runs keep them there: make finds them up to date and runs the program; deleted there, nothing changes here', async () => {
    const proj = cProject();
    expect((await run(proj, 'make')).exitCode).toBe(0);
    const copy = copyPath(wh, sshd.remoteDir, proj);
    const before = Object.fromEntries(BINARIES.map((b) => [b, statSync(join(copy, b)).mtimeMs]));
    // Nothing of build/ but the header and the report is here: the way up must not delete the rest there.
    const again = await run(proj, 'make && ./build/app');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe("make: 'build/app' is up to date.\nv1 42\n");
    expect(Object.fromEntries(BINARIES.map((b) => [b, statSync(join(copy, b)).mtimeMs]))).toEqual(before);
    expect(again.stderr).not.toContain('kept on the worker');
    // Deleted and touched there: no conflict, nothing here, and no longer kept.
    const gone = await run(proj, 'rm build/app && touch build/main.o');
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect(gone.stderr).toMatch(/, 0 files back, 0 conflicts\n/);
    const list = JSON.parse((await sparehand(['worker', 'fetch', '--list', '--json'], { env: mac(), cwd: proj })).stdout);
    expect(list.kept.map((k: { path: string }) => k.path)).toEqual(BINARIES.filter((b) => b !== 'build/app'));
  });

  it('a kept program at a path rsync sends (`cc -o app`, not ignored) survives the way up, as long as nothing is at its path here', async () => {
    const proj = gitProject({ 'a.c': 'int main(void){return 3;}\n' });
    expect((await run(proj, 'cc a.c -o app')).exitCode).toBe(0);
    expect(existsSync(join(proj, 'app'))).toBe(false);
    const r = await run(proj, 'test -x app && ./app');
    expect(r.exitCode, r.stderr).toBe(3);
  });

  it('sparehand worker fetch brings them on purpose: never over a file here, under --to elsewhere; a path no worker keeps is named', async () => {
    const proj = cProject();
    write(proj, 'build/app', 'the Mac build of app\n');
    expect((await run(proj, 'make')).exitCode).toBe(0);
    const list = await sparehand(['worker', 'fetch', '--list'], { env: mac(), cwd: proj });
    expect(
      list.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(0, 3)),
    ).toEqual(BINARIES.map((b) => [b, 'w0', 'copy 0']));
    const one = await sparehand(['worker', 'fetch', '../build/libutil.so', '../build/app'], { env: mac(), cwd: join(proj, 'src') });
    expect(one.exitCode).toBe(1);
    expect(one.stderr).toMatch(new RegExp(`^sparehand: fetched build/libutil.so from w0 \\(ELF shared library for ${LINUX}, \\d+ KB\\)\n`));
    expect(one.stderr).toContain('sparehand: not fetched: build/app: a file is already there; it stays (delete it first, or fetch with --to DIR)\n');
    expect(readFileSync(join(proj, 'build', 'app'), 'utf8')).toBe('the Mac build of app\n');
    expect(nativeCodeOfFile(join(proj, 'build', 'libutil.so'))).toMatchObject({ format: 'ELF', kind: 'library' });
    const all = await sparehand(['worker', 'fetch', '--to', 'linux', '--json'], { env: mac(), cwd: proj });
    const doc = JSON.parse(all.stdout);
    expect(doc.fetched.map((f: { path: string }) => f.path)).toEqual(BINARIES);
    const copy = copyPath(wh, sshd.remoteDir, proj);
    for (const b of BINARIES) expect(readFileSync(join(proj, 'linux', b)).equals(readFileSync(join(copy, b))), b).toBe(true);
    expect(statSync(join(proj, 'linux', 'build', 'app')).mode & 0o777).toBe(statSync(join(copy, 'build', 'app')).mode & 0o777);
    const none = await sparehand(['worker', 'fetch', 'src'], { env: mac(), cwd: proj });
    expect([none.exitCode, none.stderr]).toEqual([
      1,
      'sparehand: not fetched: src: no worker keeps it (only what a run kept there because it does not run here can be fetched)\n',
    ]);
  });

  it('the kept line names the files and the exact `worker fetch`, which brings them when pasted where the run was (names quoted for the shell; one that cannot be printed as it is never goes into the command)', async () => {
    const proj = gitProject({ '.gitignore': 'out/\n', 'src/a.c': 'int a(void){return 1;}\n' });
    const odd = ["out/it's one.o", 'out/$(touch pwned).o'];
    const cc = (o: string) => `cc -c a.c -o ${quote([`../${o}`])}`;
    const r = await run(join(proj, 'src'), `mkdir -p ../out && ${odd.map(cc).join(' && ')}`);
    expect(r.exitCode, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('kept on the worker'));
    expect(line).toBe(
      `sparehand: 2 ${LINUX} binaries kept on the worker (they do not run here): out/$(touch pwned).o, out/it's one.o; \`sparehand worker fetch '../out/$(touch pwned).o' "../out/it's one.o"\` brings them`,
    );
    // Pasted into bash where the run was, as the agent would: exactly these files come, nothing else runs.
    const paste = /`(sparehand worker fetch [^`]*)`/.exec(line as string)?.[1] as string;
    const got = await execa('bash', ['-c', `sparehand() { ${quote([process.execPath, BIN])} "$@"; }\n${paste}`], {
      cwd: join(proj, 'src'),
      env: mac(),
      extendEnv: false,
      reject: false,
    });
    expect(got.exitCode, got.stderr).toBe(0);
    for (const o of odd) expect(nativeCodeOfFile(join(proj, o)), o).toMatchObject({ format: 'ELF', kind: 'object' });
    expect(existsSync(join(proj, 'src', 'pwned'))).toBe(false);
    // Five of them, one named with a newline that would forge a line: three names, a count, the folder; escaped.
    const evil = 'out/a\nsparehand: all good.o';
    const more = await run(join(proj, 'src'), `${['b', 'c', 'd'].map((n) => cc(`out/${n}.o`)).join(' && ')} && ${cc(evil)}`);
    expect(more.exitCode, more.stderr).toBe(0);
    expect(more.stderr).toContain(
      `sparehand: 4 ${LINUX} binaries kept on the worker (they do not run here): "out/a\\nsparehand: all good.o", out/b.o, out/c.o and 1 more; \`sparehand worker fetch ../out\` brings them\n`,
    );
    expect(more.stderr).not.toMatch(/^sparehand: all good/m);
  });

  withCargo('a cargo build: the program stays there, its dep-info file comes back', async () => {
    const proj = gitProject({
      '.gitignore': '/target\n',
      'Cargo.toml': '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/main.rs': 'fn main() { println!("hello from {}", std::env::var("WHERE").unwrap_or("here".into())); }\n',
    });
    const r = await run(proj, 'cargo build --offline -q');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `sparehand: 1 ${LINUX} binary kept on the worker (it does not run here): target/debug/hello; \`sparehand worker fetch target/debug/hello\` brings it\n`,
    );
    expect(existsSync(join(proj, 'target', 'debug', 'hello'))).toBe(false);
    expect(readFileSync(join(proj, 'target', 'debug', 'hello.d'), 'utf8')).toContain('src/main.rs');
    expect(nativeHere(proj)).toEqual([]);
  });
});

describe('chains that run what they build', () => {
  /** The hook's rewrite of `command` for Claude Code, as its real process answers. */
  async function hookRewrite(command: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
    const payload = JSON.parse(readFileSync(join(FIXTURES, 'agents', 'claude-code', 'payload.json'), 'utf8'));
    payload.tool_input.command = command;
    const r = await sparehand(['agent', 'hook', '--for', 'claude-code'], { env, input: JSON.stringify(payload) });
    return r.stdout ? (JSON.parse(r.stdout).hookSpecificOutput?.updatedInput?.command as string) : undefined;
  }
  /** Runs `rewritten` in real bash in `proj`, with `sparehand` on PATH as the hook names it. */
  const bash = (proj: string, rewritten: string, env: NodeJS.ProcessEnv) =>
    execa('bash', ['-c', rewritten], { cwd: proj, env, extendEnv: false, reject: false });

  withCargo(
    'cargo build && ./target/debug/hello, and make && ./build/app: the hook sends each whole, and the program that runs is the one just built, on the worker',
    async () => {
      const h = workerHome([sshd]);
      const env = { ...h.env, ...MAC };
      // The worker's platform is known once `worker check` (or worker add, or a run) has seen it.
      expect((await sparehand(['worker', 'check'], { env })).stdout).toContain(`w0: ok: ${LINUX} (glibc)`);
      const crate = gitProject({
        '.gitignore': '/target\n',
        'Cargo.toml': '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n',
        'src/main.rs': 'fn main() { println!("hello from {}", std::env::var("WHERE").unwrap_or("here".into())); }\n',
      });
      const cargo = await hookRewrite('cargo build --offline -q && ./target/debug/hello', env);
      expect(cargo).toMatch(/ run --or-local (--timeout \S+ )?-- 'cargo build --offline -q && \.\/target\/debug\/hello'$/);
      const r = await bash(crate, cargo as string, env);
      expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'hello from worker']);
      const c = cProject();
      const make = await hookRewrite('make -s && ./build/app', env);
      expect(make).toMatch(/ run --or-local (--timeout \S+ )?-- 'make -s && \.\/build\/app'$/);
      const m = await bash(c, make as string, env);
      expect([m.exitCode, m.stdout], m.stderr).toEqual([0, 'v1 42']);
      // One platform: split as ever (the program runs here, and here it is what came back).
      expect(await hookRewrite('make && ./build/app', h.env)).toMatch(/ run --or-local (--timeout \S+ )?-- 'make' && \.\/build\/app$/);
      await h.close();
    },
  );

  it("a part that cannot go with the build keeps the whole chain here; docs/run.md's examples are what classify says", async () => {
    const h = workerHome([sshd]);
    const env = { ...h.env, ...MAC };
    expect((await sparehand(['worker', 'check'], { env })).exitCode).toBe(0);
    expect(await hookRewrite('make && ./a.out --config ~/a.toml', env)).toBeUndefined();
    const page = readFileSync(new URL('../../docs/run.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Mac laptop, Linux worker'), page.indexOf('## What the worker can and cannot do'));
    const examples = [...section.matchAll(/```\n\$ (sparehand classify -- .*)\n([^`]*)```/g)];
    expect(examples.length).toBe(2);
    const bin = tempDir('sparehand-bin-');
    tool(bin, 'sparehand', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`);
    for (const [, line, shown] of examples) {
      const r = await execa('bash', ['-c', line as string], { env: { ...env, PATH: `${bin}:${process.env.PATH}` }, extendEnv: false, reject: false });
      // The doc names the worker's platform as a Linux x86-64 box; this machine's may be another architecture.
      expect((r.stdout as string).trim()).toBe((shown as string).trim().replaceAll('Linux x86-64', LINUX));
    }
    await h.close();
  });
});

describe("each side's platform, shown", () => {
  it('worker add asks the worker and says what follows; status and doctor show both sides; a bad override is named', async () => {
    const h = workerHome([sshd]);
    const env = { ...h.env, ...MAC };
    const add = await sparehand(['worker', 'add', 'box', sshd.destination, '--port', String(sshd.port), '--identity', sshd.identity], {
      env,
    });
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stderr).toContain(
      `sparehand: box is ${LINUX}, this machine macOS arm64: the executables, libraries and object files its commands build stay there (\`sparehand worker fetch\` brings them), a chain that runs what it just built (\`make && ./app\`) runs whole there or whole here`,
    );
    const status = await sparehand(['status'], { env });
    // The slots themselves are the other tests' business (a run of theirs may still be ending on this worker).
    expect(status.stdout).toContain(`box (${sshd.destination}, ${LINUX} (glibc); this machine: macOS arm64): `);
    expect(status.stdout).toMatch(/: \d of 2 slots busy\n/);
    expect(JSON.parse((await sparehand(['status', '--json'], { env })).stdout).here).toMatchObject({
      platform: 'darwin arm64',
      local: { busy: [], waiting: [] },
    });
    // On one platform, status names the worker's only.
    // (How many are busy is again the other tests' business.)
    expect((await sparehand(['status'], { env: h.env })).stdout).toContain(`box (${sshd.destination}, ${LINUX} (glibc)): `);
    expect((await sparehand(['status'], { env: h.env })).stdout).not.toContain('this machine: ');
    const doctor = await sparehand(['doctor'], { env });
    expect(doctor.stdout).toContain('ok  platform: this machine is macOS arm64 (from SPAREHAND_PLATFORM_HERE, not detected)\n');
    expect(doctor.stdout).toContain(`  note: box is ${LINUX}, this machine macOS arm64: `);
    const bad = await sparehand(['doctor'], { env: { ...h.env, SPAREHAND_PLATFORM_HERE: 'amiga' } });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toMatch(/^BAD platform: this machine is Linux \S+ \(glibc\) \(detected\); SPAREHAND_PLATFORM_HERE=amiga names no platform/m);
    await h.close();
  });
});
