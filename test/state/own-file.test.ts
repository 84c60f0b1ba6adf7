// sparehand's own state is opened safely: a file it did not make (another user's, a link, a FIFO, a hard link, in a
// folder another user can write) is ignored with one line, never followed, never waited on. Real files, a real
// FIFO, real links to a file outside that must stay untouched, and (as root) files of a real other user (nobody).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, linkSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Worker } from '../../lib/config.js';
import { logLine } from '../../lib/hook/io.js';
import { hookLogPath, stateDir, cacheDir } from '../../lib/paths.js';
import { rememberNoAnswer, rememberedNoAnswer } from '../../lib/remote/unreachable.js';
import { knownWorkerPlatform, rememberWorkerPlatform } from '../../lib/remote/worker-facts.js';
import { connect, connectionFor } from '../../lib/remote/connection.js';
import { takeFolder } from '../../lib/run/folders.js';
import { recordRun } from '../../lib/run/runs-here.js';
import { tempOwnDir } from '../../lib/state/own-dirs.js';
import { sparehand } from '../helpers/cli.js';
import { itNeedsRoot } from '../helpers/as-root.js';
import { tempDir, testContext } from '../helpers/context.js';

const NOBODY = 65534;
const worker: Worker = { name: 'w0', destination: 'me@box' } as Worker;
/** A forged "w0 did not answer a second ago": every run would skip w0 for a minute. */
const forged = () => JSON.stringify({ at: Date.now() - 1000, why: 'ssh: connect to host box port 22: Connection timed out' });

/** A context with a temp folder of its own: state is read from there too (where a sandbox has sparehand keep it). */
function contexts() {
  const c = testContext({ env: { TMPDIR: tempDir('sparehand-tmpdir-') } });
  return { c, temp: tempOwnDir(c) };
}

/** A file outside sparehand's folders that must stay as it is (~/.bashrc). */
function outside(): { path: string; text: string } {
  const path = join(tempDir(), 'bashrc');
  writeFileSync(path, 'export KEEP=me\n');
  return { path, text: 'export KEEP=me\n' };
}

describe("sparehand's own state, read only from files it made", () => {
  itNeedsRoot('(needs root: chown) a forged "did not answer" in a temp folder another user made first is ignored, with one line', () => {
    const { c, temp } = contexts();
    mkdirSync(join(temp, 'unreachable'), { recursive: true, mode: 0o700 });
    writeFileSync(join(temp, 'unreachable', 'w0.json'), forged());
    for (const p of [temp, join(temp, 'unreachable'), join(temp, 'unreachable', 'w0.json')]) chownSync(p, NOBODY, NOBODY);
    expect(rememberedNoAnswer(c, worker)).toBeUndefined();
    expect(rememberedNoAnswer(c, worker)).toBeUndefined();
    expect(c.err()).toBe(`sparehand: ignored ${temp}: it belongs to another user (uid ${NOBODY})\n`);
  });

  itNeedsRoot("(needs root: chown) another user's file in sparehand's own folder is ignored", () => {
    const { c, temp } = contexts();
    mkdirSync(join(temp, 'unreachable'), { recursive: true, mode: 0o700 });
    const file = join(temp, 'unreachable', 'w0.json');
    writeFileSync(file, forged());
    chownSync(file, NOBODY, NOBODY);
    expect(rememberedNoAnswer(c, worker)).toBeUndefined();
    expect(c.err()).toBe(`sparehand: ignored ${file}: it belongs to another user (uid ${NOBODY})\n`);
  });

  itNeedsRoot('(needs root: chown) a folder other users can write in is made private (0700), and their file in it ignored', () => {
    const { c, temp } = contexts();
    mkdirSync(join(temp, 'unreachable'), { recursive: true, mode: 0o700 });
    chmodSync(join(temp, 'unreachable'), 0o777);
    const file = join(temp, 'unreachable', 'w0.json');
    writeFileSync(file, forged());
    chownSync(file, NOBODY, NOBODY);
    expect(rememberedNoAnswer(c, worker)).toBeUndefined();
    expect(statSync(join(temp, 'unreachable')).mode & 0o777).toBe(0o700);
    expect(c.err()).toContain(`sparehand: made ${join(temp, 'unreachable')} private (0700): other users could write in it\n`);
  });

  it('a link in the state folder is not read through: a "did not answer" planted as a link to a file outside is ignored', () => {
    const c = testContext();
    const elsewhere = join(tempDir(), 'w0.json');
    writeFileSync(elsewhere, forged());
    const dir = join(stateDir(c), 'unreachable');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(dir, 'w0.json'));
    expect(rememberedNoAnswer(c, worker)).toBeUndefined();
    expect(c.err()).toBe(`sparehand: ignored ${join(dir, 'w0.json')}: a link, not a file sparehand made\n`);
    // What sparehand writes there replaces the link: the file it pointed at is untouched.
    rememberNoAnswer(c, worker, 'timed out');
    expect(lstatSync(join(dir, 'w0.json')).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(elsewhere, 'utf8')).why).toMatch(/Connection timed out/);
    expect(rememberedNoAnswer(c, worker)?.why).toBe('timed out');
  });

  it('a hard link to a file of the user is not read as state', () => {
    const c = testContext();
    const elsewhere = join(tempDir(), 'w0.json');
    writeFileSync(elsewhere, forged());
    const dir = join(stateDir(c), 'unreachable');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    linkSync(elsewhere, join(dir, 'w0.json'));
    expect(rememberedNoAnswer(c, worker)).toBeUndefined();
    expect(c.err()).toBe(`sparehand: ignored ${join(dir, 'w0.json')}: a hard link to another file, not a file sparehand made\n`);
  });

  it("a worker's platform is written to the cache, never through a link planted there (the file it points at stays)", async () => {
    const c = testContext();
    const keep = outside();
    mkdirSync(join(cacheDir(c), 'workers'), { recursive: true, mode: 0o700 });
    symlinkSync(keep.path, join(cacheDir(c), 'workers', 'platforms.json'));
    await rememberWorkerPlatform(c, worker, { os: 'linux', arch: 'x86_64', libc: 'glibc' });
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    expect(lstatSync(join(cacheDir(c), 'workers', 'platforms.json')).isFile()).toBe(true);
    expect(knownWorkerPlatform(c, worker)).toEqual({ os: 'linux', arch: 'x86_64', libc: 'glibc' });
  });

  it("the hook's log is never appended to through a link, nor emptied through one", () => {
    const c = testContext();
    const keep = outside();
    mkdirSync(stateDir(c), { recursive: true, mode: 0o700 });
    symlinkSync(keep.path, hookLogPath(c));
    logLine(c, 'claude-code: payload is not JSON: left alone');
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    expect(lstatSync(hookLogPath(c)).isFile()).toBe(true);
    expect(readFileSync(hookLogPath(c), 'utf8')).toMatch(/claude-code: payload is not JSON: left alone\n$/);
    // The hook's stderr is the tool's: nothing said there.
    expect(c.err()).toBe('');
  });

  it('a FIFO as the hook log or a cache file does not hang (a real mkfifo; the old code waited for a reader forever)', () => {
    const home = tempDir('sparehand-home-');
    const c = testContext({ home });
    mkdirSync(join(cacheDir(c), 'workers'), { recursive: true, mode: 0o700 });
    mkdirSync(stateDir(c), { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', [hookLogPath(c)]);
    execFileSync('mkfifo', [join(cacheDir(c), 'workers', 'platforms.json')]);
    // In a process of its own, so that a hang is a failure (a timeout), not a test runner stuck for good.
    const lib = (p: string) => pathToFileURL(join(import.meta.dirname, '../../dist', p)).href;
    const script = [
      `const { logLine } = await import(${JSON.stringify(lib('hook/io.js'))});`,
      `const { knownWorkerPlatform } = await import(${JSON.stringify(lib('remote/worker-facts.js'))});`,
      `const c = { home: ${JSON.stringify(home)}, env: { HOME: ${JSON.stringify(home)} }, stderr: process.stderr };`,
      "logLine(c, 'one line');",
      "console.log(JSON.stringify(knownWorkerPlatform(c, { name: 'w0', destination: 'me@box' }) ?? null));",
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('null\n');
    expect(lstatSync(hookLogPath(c)).isFile()).toBe(true);
    expect(readFileSync(hookLogPath(c), 'utf8')).toMatch(/ one line\n$/);
  });
});

describe('every state file sparehand opens, through the same rule', () => {
  it("a run's record in the state folder is made anew, never written through a link planted under its name", () => {
    const c = testContext();
    const keep = outside();
    const w = { name: 'w0', destination: 'me@box' } as Worker;
    const dir = join(stateDir(c), 'runs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Its name is the worker, this host and this process: a command in a sandbox can plant it.
    const file = join(dir, `w0.${hostname()}.${process.pid}`);
    symlinkSync(keep.path, file);
    const forget = recordRun(c, w);
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    expect(lstatSync(file).isFile()).toBe(true);
    forget();
  });

  it("ssh's log beside the shared connection is made anew, never written through a link (a real ssh that fails)", async () => {
    const c = testContext();
    const keep = outside();
    // Nothing listens on port 1: ssh fails at once, having written its reason to the log.
    const w = { name: 'w0', destination: 'nobody@127.0.0.1', port: 1 } as Worker;
    const conn = connectionFor(c, w);
    expect(conn.controlPath).not.toBe('none');
    symlinkSync(keep.path, `${conn.controlPath}.log`);
    await expect(connect(c, w, conn, { timeoutS: 5 })).rejects.toThrow();
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    expect(lstatSync(`${conn.controlPath}.log`).isFile()).toBe(true);
  });

  it('a FIFO as the code cache of the CLI does not hang sparehand (every command starts through it)', async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: process.env.PATH! };
    const bundle = join(import.meta.dirname, '../../dist/cli.bundle.cjs');
    const st = statSync(bundle);
    const v8 = join(home, '.cache', 'sparehand', 'v8');
    mkdirSync(v8, { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', [join(v8, `${basename(bundle)}-${process.version}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}.v8`)]);
    const run = sparehand(['--version'], { env });
    const timer = setTimeout(() => run.kill('SIGKILL'), 20_000);
    const r = await run;
    clearTimeout(timer);
    expect([r.exitCode, r.signal ?? null]).toEqual([0, null]);
  });

  it("the run log is appended to as sparehand's own file: a link planted as runs.jsonl is replaced, its target untouched", async () => {
    const home = tempDir('sparehand-home-');
    const env = { HOME: home, PATH: process.env.PATH! };
    const keep = outside();
    const state = join(home, '.local', 'state', 'sparehand');
    mkdirSync(state, { recursive: true, mode: 0o700 });
    symlinkSync(keep.path, join(state, 'runs.jsonl'));
    const r = await sparehand(['run', '--or-local', '--', 'echo ran'], { env, cwd: tempDir() });
    expect([r.exitCode, r.stdout]).toEqual([0, 'ran\n']);
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    const logged = await sparehand(['log', '--json'], { env });
    expect(JSON.parse(logged.stdout).runs.map((e: { command: string }) => e.command)).toEqual(['echo ran']);
  });

  it("the lock on a copy's folder is written anew, never through a link planted as its temp name", () => {
    const c = testContext();
    const keep = outside();
    const dir = join(stateDir(c), 'folders');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    symlinkSync(keep.path, join(dir, `w0.k.0.${process.pid}`));
    const held = takeFolder(c, worker, 'k');
    expect(held.index).toBe(0);
    expect(readFileSync(keep.path, 'utf8')).toBe(keep.text);
    held.release();
  });

  itNeedsRoot("(needs root: chown) another user's install lock in a shared temp folder does not hold `agent install` off", async () => {
    const home = tempDir('sparehand-home-');
    const tmp = tempDir('sparehand-tmpdir-');
    chmodSync(tmp, 0o1777);
    const uid = process.getuid!();
    const id = createHash('sha256')
      .update(join(home, '.local', 'state', 'sparehand'))
      .digest('hex')
      .slice(0, 16);
    // Made first by another user: the old lock's name (naming a live process, pid 1) and the private temp folder.
    const lock = join(tmp, `sparehand-install-${uid}-${id}.lock`);
    writeFileSync(lock, '1\n');
    chownSync(lock, NOBODY, NOBODY);
    mkdirSync(join(tmp, `sparehand-${uid}`), { mode: 0o755 });
    chownSync(join(tmp, `sparehand-${uid}`), NOBODY, NOBODY);
    const r = await sparehand(['agent', 'install', 'gemini-cli'], { env: { HOME: home, TMPDIR: tmp, PATH: process.env.PATH! } });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});
