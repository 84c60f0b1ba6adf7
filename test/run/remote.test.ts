import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cliLine, sparehand } from '../helpers/cli.js';
import { nodeProject } from '../helpers/node-project.js';
import { containerWorker } from '../helpers/container.js';
import { terminalsWork } from '../helpers/sshd.js';
import { copyPath, sharedWorker } from '../helpers/worker-env.js';

export const w = sharedWorker();

/** The slot folder on the worker for `proj` (slot 0 unless said). */
const remoteCopy = (proj: string, slot = 0) => copyPath(w.wh, w.sshd.remoteDir, proj, slot);

describe('sparehand run on a real worker over ssh', () => {
  it('runs npm test there: output streamed, exit 0, node_modules installed there and not copied, secrets not sent', async () => {
    const proj = nodeProject();
    const r = await sparehand(['run', '--', 'npm test && echo "${PWD#/}"'], { env: w.wh.env, cwd: proj });
    expect(r.stderr).toContain('sparehand: installing dependencies on the worker: npm ci');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/# pass 1/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(remoteCopy(proj).slice(1));
    const remote = remoteCopy(proj);
    expect(existsSync(join(remote, 'node_modules', 'tiny', 'index.js'))).toBe(true);
    expect(existsSync(join(remote, 'node_modules', 'LOCAL_ONLY'))).toBe(false);
    expect(existsSync(join(remote, '.env'))).toBe(false);
    expect(existsSync(join(remote, '.git'))).toBe(false);
    expect(r.stderr).toMatch(/^sparehand: ran on w0: sync \d+\.\ds, deps \d+\.\ds, run \d+\.\ds, 0 files back, 0 conflicts\n$/m);

    // Second run: the lock file has not changed, so nothing is installed again; what the worker made in the folders
    // the sync keeps there (node_modules, caches) survives the mirror's --delete; an ignored file only the worker
    // has, and this machine does not, goes (the copy is what the project is here).
    mkdirSync(join(remote, '.pytest_cache'));
    writeFileSync(join(remote, '.pytest_cache', 'v'), 'made on the worker\n');
    mkdirSync(join(remote, 'node_modules', '.cache'));
    writeFileSync(join(remote, 'node_modules', '.cache', 'made-there'), 'made on the worker\n');
    writeFileSync(join(remote, 'cache.log'), 'made on the worker\n');
    const again = await sparehand(['run', '--quiet', '--', 'npm test'], { env: w.wh.env, cwd: proj });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe('');
    expect(existsSync(join(remote, 'node_modules', 'tiny', 'index.js'))).toBe(true);
    expect(existsSync(join(remote, 'node_modules', '.cache', 'made-there'))).toBe(true);
    expect(existsSync(join(remote, '.pytest_cache', 'v'))).toBe(true);
    expect(existsSync(join(remote, 'cache.log'))).toBe(false);
  });

  it('passes a failing exit status through, and a remote signal as 128+N', async () => {
    const proj = nodeProject();
    writeFileSync(join(proj, 'test', 'math.test.js'), "require('node:test')('bad', () => { throw new Error('nope'); });\n");
    const r = await sparehand(['run', '--quiet', '--', 'npm test'], { env: w.wh.env, cwd: proj });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/# fail 1/);
    const s = await sparehand(['run', '--quiet', '--', 'kill -TERM $$'], { env: w.wh.env, cwd: proj });
    expect(s.exitCode).toBe(143);
    const e = await sparehand(['run', '--quiet', '--', 'printf "%s|%s" "$SPAREHAND_RUN" "${HOME_SECRET-unset}"; exit 3'], {
      env: { ...w.wh.env, HOME_SECRET: 'x' },
      cwd: proj,
    });
    expect(e.exitCode).toBe(3);
    expect(e.stdout).toBe('1|unset');
  });

  it('runs in the same relative folder', async () => {
    const proj = nodeProject();
    // (The copy's folder without its first `/`: as a path, the output shows the root here.)
    const r = await sparehand(['run', '--quiet', '--', 'echo "${PWD#/}"'], { env: w.wh.env, cwd: join(proj, 'src') });
    expect(r.stdout).toBe(`${join(remoteCopy(proj), 'src').slice(1)}\n`);
  });

  it('npm run build: dist/ comes back; deletions and changes come back; a file edited here meanwhile is kept', async () => {
    const proj = nodeProject();
    writeFileSync(join(proj, 'old.txt'), 'to be deleted by the command\n');
    writeFileSync(join(proj, 'notes.txt'), 'v1\n');
    // Files that were there before the run (a file written within 50 ms of the start counts as written during it).
    const before = Date.now() / 1000 - 10;
    for (const f of ['old.txt', 'notes.txt', 'src/math.js']) utimesSync(join(proj, f), before, before);
    const cmd = 'npm run build && rm old.txt && echo formatted > src/math.js && sleep 1.5 && echo worker > notes.txt';
    const run = sparehand(['run', '--', cmd], { env: w.wh.env, cwd: proj });
    // Edit notes.txt here while the command runs (after the sync up, before it finishes).
    await new Promise((r) => setTimeout(r, 1500));
    writeFileSync(join(proj, 'notes.txt'), 'mine\n');
    const r = await run;
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(proj, 'dist', 'out.js'), 'utf8')).toContain("CONST { DOUBLE } = REQUIRE('TINY');");
    expect(existsSync(join(proj, 'old.txt'))).toBe(false);
    expect(readFileSync(join(proj, 'src', 'math.js'), 'utf8')).toBe('formatted\n');
    expect(readFileSync(join(proj, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(r.stderr).toContain('sparehand: conflict: notes.txt changed here while the command ran');
    expect(r.stderr).toMatch(/ran on w0: .*, 3 files back \(\d+ B\), 1 conflict\n/);
    expect(readdirSync(join(proj, 'node_modules')).sort()).toEqual(['.package-lock.json', 'LOCAL_ONLY', 'tiny']);
  });

  it('a command that only touches files (mtime) or writes the same bytes again brings 0 files back', async () => {
    const proj = nodeProject();
    writeFileSync(join(proj, 'same.txt'), 'same\n');
    const before = Date.now() / 1000 - 10;
    for (const f of ['same.txt', 'src/math.js', 'package.json']) utimesSync(join(proj, f), before, before);
    const r = await sparehand(['run', '--', 'touch src/math.js package.json && cat same.txt > t && mv t same.txt'], { env: w.wh.env, cwd: proj });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/ran on w0: .*, 0 files back, 0 conflicts\n/);
    const log = await sparehand(['log', '--json', '-n', '1'], { env: w.wh.env, cwd: proj });
    expect((JSON.parse(log.stdout) as { runs: { files: number }[] }).runs[0]!.files).toBe(0);
    // An output (ignored here) that came back, then only touched there.
    expect((await sparehand(['run', '--', 'npm run build'], { env: w.wh.env, cwd: proj })).stderr).toMatch(/[1-9]\d* files? back/);
    const again = await sparehand(['run', '--', 'touch dist/out.js'], { env: w.wh.env, cwd: proj });
    expect(again.stderr).toMatch(/ran on w0: .*, 0 files back, 0 conflicts\n/);
  });

  it.runIf(containerWorker() || terminalsWork())(
    'with a terminal here, the command gets one there (ssh -tt; an exec worker gives none), and TERM is forwarded',
    async () => {
      const proj = nodeProject();
      // `script` gives sparehand a pseudo-terminal for stdin and stdout, as an interactive shell would.
      const line = cliLine(['run', '--quiet', '--', '{ test -t 0 && test -t 1 && echo "tty $TERM" || echo "no tty $TERM"; } && echo made > tty-made.txt']);
      const r = await execa('script', ['-qec', line, '/dev/null'], { cwd: proj, env: { ...w.wh.env, TERM: 'xterm-test' }, extendEnv: false, reject: false });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.replace(/\r/g, '')).toMatch(containerWorker() ? /^no tty xterm-test$/m : /^tty xterm-test$/m);
      // Nothing but the command's output reaches the terminal (no stray byte before it).
      expect(JSON.stringify(r.stdout)).not.toContain('\\u0000');
      const bare = mkdtempSync(join(tmpdir(), 'sparehand-bare-'));
      for (const args of [['run', '--', 'printf hi']]) {
        const b = await execa('script', ['-qec', cliLine(args), '/dev/null'], {
          cwd: bare,
          env: { ...w.wh.env, TERM: 'xterm' },
          extendEnv: false,
          reject: false,
        });
        expect(JSON.stringify(b.stdout), args.join(' ')).not.toContain('\\u0000');
      }
      // The results come back in a second round trip (a terminal cannot carry them).
      expect(readFileSync(join(proj, 'tty-made.txt'), 'utf8')).toBe('made\n');
      const plain = await sparehand(['run', '--quiet', '--', 'test -t 0 || test -t 1 || echo "no tty"'], { env: w.wh.env, cwd: proj });
      expect(plain.stdout).toBe('no tty\n');
    },
  );

  it('--no-sync-back leaves the local tree alone', async () => {
    const proj = nodeProject();
    const r = await sparehand(['run', '--no-sync-back', '--quiet', '--', 'npm run build'], { env: w.wh.env, cwd: proj });
    expect(r.exitCode).toBe(0);
    expect(existsSync(join(proj, 'dist'))).toBe(false);
  });
});
