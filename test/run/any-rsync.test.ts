// The run contract's core with the pairings of rsyncs a Mac brings (SPEC "Any client"): openrsync (macOS 15.4 and
// later) here with GNU rsync on the worker, a Mac worker, and two Macs. Real sshd, real rsyncs (openrsync built from
// test/fixtures: test/helpers/rsyncs.ts), real bash. rsync 2.6.9 (older macOS) is tested as data only.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { openrsyncBin } from '../helpers/rsyncs.js';
import { files, gitProject, startMarker, until } from '../helpers/project.js';
import { type Sshd, startSshd } from '../helpers/sshd.js';
import { type WorkerHome, copyPath, workerHome } from '../helpers/worker-env.js';

const pairs = [
  { name: 'GNU rsync here, GNU rsync on the worker', here: 'gnu', there: 'gnu' },
  { name: 'openrsync here, GNU rsync on the worker', here: 'openrsync', there: 'gnu' },
  { name: 'GNU rsync here, openrsync on the worker (a Mac worker)', here: 'gnu', there: 'openrsync' },
  { name: 'openrsync on both sides (two Macs)', here: 'openrsync', there: 'openrsync' },
] as const;
const bins = { gnu: undefined, openrsync: openrsyncBin } as const;

describe.each(pairs)('$name', ({ here, there }) => {
  let sshd: Sshd;
  let wh: WorkerHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    // A worker session's PATH: the usual one, with a Mac's rsync as `rsync` first for a Mac worker.
    const thereBin = bins[there]?.();
    sshd = await startSshd(thereBin ? { path: `${thereBin}:/usr/local/bin:/usr/bin:/bin` } : {});
    wh = workerHome([sshd]);
    const hereBin = bins[here]?.();
    env = { ...wh.env, PATH: hereBin ? `${hereBin}:${process.env.PATH}` : process.env.PATH };
  });
  afterAll(async () => {
    await wh?.close();
    await sshd?.stop();
  });
  const run = (cwd: string, cmd: string, extra: string[] = []) => sparehand(['run', ...extra, '--', cmd], { env, cwd });
  const remoteCopy = (proj: string) => copyPath(wh, sshd.remoteDir, proj);

  it('runs in the same relative folder, passes the exit status through, sends neither secrets nor ignored files', async () => {
    const proj = gitProject({
      '.gitignore': '*.log\nbuild/\n',
      'src/a.ts': 'a\n',
      'src/app.log': 'log\n',
      'build/x.o': 'o\n',
      '.env': 'SECRET=1\n',
      id_ed25519: 'key\n',
    });
    const r = await run(join(proj, 'src'), 'echo "${PWD#/}"; ls -A ..; exit 3', ['--quiet']);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${join(remoteCopy(proj), 'src').slice(1)}\n.gitignore\nsrc\n`);
    expect(existsSync(join(remoteCopy(proj), 'src', 'app.log'))).toBe(false);
  });

  it('brings back what the command changed, keeps a file edited here meanwhile, and mirrors deletions on the next sync', async () => {
    const proj = gitProject({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n', 'notes.txt': 'v1\n', 'old.txt': 'old\n' });
    const mark = startMarker();
    const p = run(proj, `${mark.touch}; mkdir -p dist && cat src/a.ts > dist/out.js && rm old.txt && sleep 1.5 && echo worker > notes.txt`);
    expect(await until(mark.started)).toBe(true);
    writeFileSync(join(proj, 'notes.txt'), 'mine\n');
    const r = await p;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(files(proj)).toEqual({ '.gitignore': 'dist/\n', 'src/a.ts': 'a\n', 'notes.txt': 'mine\n', 'dist/out.js': 'a\n' });
    expect(r.stderr).toContain('conflict: notes.txt changed here while the command ran');
    // Renamed here: the next sync moves it on the worker too; the ignored output that came back stays there.
    renameSync(join(proj, 'src/a.ts'), join(proj, 'src/b.ts'));
    const again = await run(proj, 'ls src dist', ['--quiet']);
    expect(again.stdout).toBe('dist:\nout.js\n\nsrc:\nb.ts\n');
  });

  it('a project whose path has a space and odd characters, with such file names inside', async () => {
    const parent = tempDir('sparehand-odd-');
    const proj = join(parent, "my proj's $HOME [1]");
    mkdirSync(proj);
    renameSync(gitProject({ 'a file (1).txt': 'one\n', 'sub dir/ü*?.txt': 'two\n' }), proj);
    const r = await run(join(proj, 'sub dir'), 'cat ./*.txt && echo made > "new file & more.txt"', ['--quiet']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('two\n');
    expect(readFileSync(join(proj, 'sub dir', 'new file & more.txt'), 'utf8')).toBe('made\n');
  });

  it('an ignored path with wildcard characters in its name is not sent', async () => {
    const proj = gitProject({ '.gitignore': 'secret\\[1\\]\\*.txt\n', 'secret[1]*.txt': 'no\n', 'secret1x.txt': 'yes\n' });
    const r = await run(proj, 'ls', ['--quiet']);
    expect(r.stdout).toBe('secret1x.txt\n');
  });
});
