// The way every user runs it (issue 34): a worker added exactly as README's Quick start says (`sparehand worker add
// box user@host`, no --dir: the copies go to `~/.cache/sparehand/work` under the worker's login folder), logged in as
// an ordinary user whose HOME is its login folder, runs typed in a terminal (`script -qec`) and not. Between runs,
// seeded random edits here (new, changed, deleted, renamed, the mtime put back, tracked files under an ignored
// folder, links), with the watcher running, killed and starting again; before each command, the command itself
// lists the worker's copy, which must be exactly the project here. Every form of --dir: none, `~/x`, relative,
// absolute, with spaces, through a symbolic link to the worker's HOME.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliLine, sparehand } from '../helpers/cli.js';
import { homeWith, tempDir } from '../helpers/context.js';
import { gitProject, write } from '../helpers/project.js';
import { NO_TERMINALS, type Sshd, giveToWorker, startSshd, terminalsWork, trustHostKey } from '../helpers/sshd.js';
import { closeConnections } from '../../lib/remote/connection.js';
import { seededRandom } from '../helpers/seeded.js';

if (!terminalsWork()) console.log(`readme-setup: every round runs without a terminal: ${NO_TERMINALS}`);
let sshd: Sshd;
let linked: Sshd;
beforeAll(async () => {
  sshd = await startSshd();
  linked = await startSshd({ homeLink: true, identity: sshd.identity });
});
afterAll(async () => {
  await sshd?.stop();
  await linked?.stop();
});

/** A HOME here whose worker `box` was added by the CLI, as README says (`--dir` only when given). */
async function readmeHome(s: Sshd, dir?: string): Promise<{ home: string; env: NodeJS.ProcessEnv }> {
  const h = homeWith();
  trustHostKey(h.home, s);
  const env = { ...h.env, SPAREHAND_WATCH: 'on', npm_config_update_notifier: 'false' };
  const add = await sparehand(
    ['worker', 'add', 'box', s.destination, '--port', String(s.port), '--identity', s.identity, ...(dir === undefined ? [] : ['--dir', dir])],
    {
      env,
    },
  );
  expect(add.exitCode, add.stderr).toBe(0);
  return { home: h.home, env };
}

/** What the command prints of its folder: every file's md5 and every link's text, by path, sorted as bytes. */
const LIST =
  "find . -name .git -prune -o -name .sparehand -prune -o -type f -exec md5sum {} + -o -type l -printf '%l  %p\\n' | sed 's|  \\./|  |' | LC_ALL=C sort -k2";

/** The same list for the project here: what git tracks or would add, and links (the worker copy's contract). */
function listHere(root: string): string {
  const paths = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((p) => p !== '' && !p.startsWith('.sparehand/') && (isLink(join(root, p)) || existsSync(join(root, p))));
  const rows = [...new Set(paths)].map((p) => {
    const full = join(root, p);
    if (isLink(full)) return `${readlinkSync(full)}  ${p}`;
    return `${createHash('md5').update(readFileSync(full)).digest('hex')}  ${p}`;
  });
  return rows.sort((a, b) => Buffer.compare(Buffer.from(a.split('  ')[1] as string), Buffer.from(b.split('  ')[1] as string))).join('\n');
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** One run, in a terminal (`script`) or not; its stdout without a terminal's carriage returns. */
async function run(env: NodeJS.ProcessEnv, cwd: string, command: string, tty: boolean): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  if (!tty) {
    const r = await sparehand(['run', '--', command], { env, cwd });
    return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
  }
  const r = await execa('script', ['-qec', cliLine(['run', '--', command]), '/dev/null'], {
    cwd,
    env: { ...env, TERM: 'xterm' },
    extendEnv: false,
    reject: false,
  });
  // In a terminal both streams are the terminal's: sparehand's own lines are told apart by their prefix (the progress
  // line rewrites itself with a carriage return and an erase-line code: a line of its own).
  const lines = r.stdout
    .replace(/\r\x1b\[K/g, '\n')
    .replace(/\r/g, '')
    .split('\n')
    .filter((l) => l !== '');
  return {
    exitCode: r.exitCode ?? -1,
    stdout: lines.filter((l) => !l.startsWith('sparehand: ')).join('\n'),
    stderr: lines.filter((l) => l.startsWith('sparehand: ')).join('\n'),
  };
}

/** The project: tracked files, a tracked file under a folder .gitignore names, a link, an ignored build output. */
function project(): string {
  const root = gitProject({ 'a.txt': 'a1\n', 'src/b.js': 'b1\n', 'src/deep/c.txt': 'c1\n', 'config/app.json': '{"v":1}\n', '.gitignore': 'config/\ndist/\n' });
  symlinkSync('a.txt', join(root, 'link-to-a'));
  execFileSync('git', ['add', '-f', '.'], { cwd: root });
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd: root });
  return root;
}

/** The files an edit may pick (tracked or new, never git's or sparehand's own). */
function candidates(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const rel = relative(root, p);
      if (rel === '.git' || rel === '.sparehand' || rel === 'dist' || rel === '.gitignore') continue;
      if (e.isDirectory()) walk(p);
      else out.push(rel);
    }
  };
  walk(root);
  return out.sort();
}

/** One random edit here; says what it did (for the failure message). */
function edit(root: string, next: () => number, round: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const files = candidates(root).filter((p) => !isLink(join(root, p)));
  const kind = pick(['new', 'change', 'delete', 'rename', 'same-size-old-mtime', 'tracked-ignored', 'link'] as const);
  const file = pick(files.length ? files : ['a.txt']);
  switch (kind) {
    case 'new': {
      const p = `${pick(['n', 'src/n', 'src/deep/n', 'fresh/dir/n']) + round}.txt`;
      write(root, p, `new ${round}\n`);
      return `new ${p}`;
    }
    case 'change':
      writeFileSync(join(root, file), `changed ${round} ${'x'.repeat(Math.floor(next() * 50))}\n`);
      return `change ${file}`;
    case 'delete':
      if (files.length <= 2) return 'nothing';
      rmSync(join(root, file));
      return `delete ${file}`;
    case 'rename': {
      const to = `${file}.r${round}`;
      renameSync(join(root, file), join(root, to));
      return `rename ${file} → ${to}`;
    }
    case 'same-size-old-mtime': {
      // The same size and the mtime put back (as `cp -p` or an editor that restores it): only the content differs.
      const full = join(root, file);
      const before = readFileSync(full);
      const st = lstatSync(full);
      const flipped = Buffer.from(before);
      if (flipped.length === 0) return 'nothing';
      flipped[0] = flipped[0] === 0x5a ? 0x59 : 0x5a;
      writeFileSync(full, flipped);
      utimesSync(full, st.atime, st.mtime);
      return `same size, mtime put back: ${file}`;
    }
    case 'tracked-ignored':
      // Tracked although its folder is ignored (committed before config/ was ignored, or added with -f).
      writeFileSync(join(root, 'config', 'app.json'), `{"v":${round}}\n`);
      return 'change config/app.json (tracked, under an ignored folder)';
    case 'link': {
      const target = pick(files.length ? files : ['a.txt']);
      rmSync(join(root, 'link-to-a'), { force: true });
      symlinkSync(relative(root, join(root, target)), join(root, 'link-to-a'));
      return `link-to-a → ${target}`;
    }
  }
}

/** The watcher of `root` (its pid from the journal's header), killed: the next run must walk, or start another. */
function killWatcher(root: string): boolean {
  const journal = join(root, '.sparehand', 'watch', 'journal');
  if (!existsSync(journal)) return false;
  const m = /^sparehand-watch 1 \S+ (\d+) /.exec(readFileSync(journal, 'latin1'));
  if (!m) return false;
  try {
    process.kill(Number(m[1]), 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

const FORMS: ReadonlyArray<{ name: string; dir?: (s: Sshd) => string; linked?: boolean }> = [
  { name: 'no --dir (README)' },
  { name: '--dir ~/x', dir: () => '~/copies x' },
  { name: 'a relative --dir', dir: () => 'rel/copies' },
  { name: 'an absolute --dir with spaces', dir: (s) => join(s.home, 'abs copies', 'here') },
  { name: 'no --dir, the worker HOME a symbolic link', linked: true },
];

describe('a worker added as README says: every edit made here reaches the worker', () => {
  for (const [i, form] of FORMS.entries()) {
    const seed = Number(process.env.SPAREHAND_TEST_SEED ?? 3400) + i;
    it(`${form.name}: edit, run, edit, run… in a terminal and not (seed ${seed})`, async () => {
      const s = form.linked ? linked : sshd;
      const h = await readmeHome(s, form.dir?.(s));
      const root = project();
      const next = seededRandom(seed);
      const done: string[] = [];
      try {
        for (let round = 0; round < 6; round++) {
          const tty = round % 2 === 1 && terminalsWork();
          const r = await run(h.env, root, LIST, tty);
          expect(r.exitCode, `${r.stderr}\nafter: ${done.join('; ')}`).toBe(0);
          const here = listHere(root);
          if (r.stdout.trim() !== here) {
            const log = await sparehand(['log', '--json', '-n', '2'], { env: h.env, cwd: root });
            done.push(`log: ${log.stdout}`);
          }
          expect(r.stdout.trim(), `round ${round}${tty ? ' (terminal)' : ''} after: ${done.join('; ')}\n${r.stderr}`).toBe(here);
          for (let k = 0; k < 3; k++) done.push(edit(root, next, round));
          if (round === 3) done.push(killWatcher(root) ? 'watcher killed' : 'no watcher to kill');
        }
        // The log says what went up: a run after edits never says nothing was sent.
        const log = await sparehand(['log', '--json', '-n', '1'], { env: h.env, cwd: root });
        expect(JSON.parse(log.stdout).runs[0].where).toBe('box');
      } finally {
        killWatcher(root);
        await closeConnections({ home: h.home, env: h.env });
      }
    });
  }

  it('the copies are where README says: ~/.cache/sparehand/work under the worker user’s login folder, owned by it', async () => {
    const h = await readmeHome(sshd);
    const root = project();
    try {
      // (Without its first slash: a path of the copy is shown as the project's path here.)
      const r = await run(h.env, root, 'pwd -P | cut -c2-; id -u', false);
      expect(r.exitCode, r.stderr).toBe(0);
      const [pwd, uid] = r.stdout.trim().split('\n');
      expect(dirname(dirname(`/${pwd}`))).toBe(sshd.remoteDir);
      expect(Number(uid)).not.toBe(0);
      expect(lstatSync(sshd.remoteDir).uid).toBe(Number(uid));
    } finally {
      killWatcher(root);
      await closeConnections({ home: h.home, env: h.env });
    }
  });

  it.runIf(terminalsWork())(
    '--or-local in a terminal: a holding session that cannot write the terminal run its job runs the command here, saying why',
    async () => {
      const s = await startSshd({ identity: sshd.identity });
      try {
        const h = await readmeHome(s);
        const root = project();
        // The worker's folder for terminal jobs cannot be made there (a file in its place).
        write(s.remoteDir, '.jobs', 'not a folder\n');
        giveToWorker(s.remoteDir);
        const r = await execa('script', ['-qec', cliLine(['run', '--or-local', '--', 'echo "ran $SPAREHAND_RUN"; exit 3']), '/dev/null'], {
          cwd: root,
          env: { ...h.env, TERM: 'xterm' },
          extendEnv: false,
          reject: false,
        });
        const text = r.stdout.replace(/\r\x1b\[K/g, '\n').replace(/\r/g, '');
        expect(r.exitCode, text).toBe(3);
        expect(text).toMatch(/^sparehand: running locally: box: cannot write the terminal run's job on the worker: .+$/m);
        expect(text).toMatch(/^ran 1$/m);
        await closeConnections({ home: h.home, env: h.env });
      } finally {
        await s.stop();
      }
    },
  );

  it('--or-local: a session lost after the slot was given, before the command started, runs the command here', async () => {
    // The worker's login profile ends the worker program (its parent) before the command starts.
    const home = tempDir('sparehand-worker-home-');
    writeFileSync(join(home, '.profile'), 'kill -9 $PPID\n');
    const s = await startSshd({ identity: sshd.identity, home });
    try {
      const h = await readmeHome(s);
      const root = project();
      const r = await sparehand(['run', '--or-local', '--', 'echo "ran $SPAREHAND_RUN"; exit 3'], { env: h.env, cwd: root });
      expect(r.exitCode, r.stderr).toBe(3);
      expect(r.stdout).toBe('ran 1\n');
      expect(r.stderr).toBe('sparehand: running locally: the connection to box was lost before the command started; nothing ran there\n');
      const without = await sparehand(['run', '--', 'touch ran-here'], { env: h.env, cwd: root });
      expect(without.exitCode).toBe(125);
      expect(without.stderr).toContain('the connection to box was lost before the command started; nothing ran there');
      expect(existsSync(join(root, 'ran-here'))).toBe(false);
      await closeConnections({ home: h.home, env: h.env });
    } finally {
      await s.stop();
    }
  });

  it('a same-size edit whose mtime stays within the same second reaches the worker when rsync sends (its quick check compares whole seconds)', async () => {
    const h = await readmeHome(sshd);
    const root = project();
    try {
      expect((await run(h.env, root, 'cat a.txt', false)).stdout).toBe('a1\n');
      // The same size, and an mtime half a second past the one sent (OLD, a whole second); a link changed beside it,
      // so that rsync sends (the run's own session carries only regular files).
      writeFileSync(join(root, 'a.txt'), 'a2\n');
      const sent = lstatSync(join(root, 'src', 'b.js')).mtime;
      utimesSync(join(root, 'a.txt'), sent, new Date(sent.getTime() + 500));
      rmSync(join(root, 'link-to-a'));
      symlinkSync('src/b.js', join(root, 'link-to-a'));
      const r = await run(h.env, root, 'cat a.txt link-to-a', false);
      expect(r.stdout, r.stderr).toBe('a2\nb1\n');
    } finally {
      killWatcher(root);
      await closeConnections({ home: h.home, env: h.env });
    }
  });

  it('no --dir, no terminal: each of twelve edit-run rounds shows the edit (the warm run sends it in its own session)', async () => {
    const h = await readmeHome(sshd);
    const root = project();
    try {
      for (let i = 0; i < 12; i++) {
        writeFileSync(join(root, 'a.txt'), `round ${i}\n`);
        if (i % 3 === 2) write(root, `src/new-${i}.txt`, `new ${i}\n`);
        const r = await run(h.env, root, 'cat a.txt; ls src | grep -c new-', false);
        expect(r.stdout, `round ${i}: ${r.stderr}`).toBe(`round ${i}\n${Math.floor((i + 1) / 3)}\n`);
      }
      // The fast path was taken: nothing but these files went up, in the run's own session.
      const log = await sparehand(['log', '--json', '-n', '1'], { env: h.env, cwd: root });
      expect(JSON.parse(log.stdout).runs[0].sent).toBe('own');
    } finally {
      killWatcher(root);
      await closeConnections({ home: h.home, env: h.env });
    }
  });
});
