// The worker's report (lib/remote/worker/report.pl, inside the worker program), run here with real perl on real
// folders: what it reports is exactly what the command changed, and the command's output and status come through
// only in frames.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { giveToWorker, isRoot, workerUser } from '../helpers/sshd.js';
import type { Change } from '../../lib/remote/change.js';
import { tempDir } from '../helpers/context.js';
import { frame } from '../../lib/remote/frames.js';
import { runWorker, workerFolder } from '../helpers/local-worker.js';

const brief = (c: Change) => `${c.op} ${c.type} ${c.path}${c.type === 'l' ? ` -> ${c.target}` : ''}`;

function project() {
  const w = workerFolder();
  mkdirSync(join(w.root, 'src'), { recursive: true });
  writeFileSync(join(w.root, 'src', 'a.ts'), 'a\n');
  writeFileSync(join(w.root, 'keep.txt'), 'k\n');
  writeFileSync(join(w.root, 'gone.txt'), 'g\n');
  mkdirSync(join(w.root, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(w.root, 'node_modules', 'x', 'i.js'), '1\n');
  return w;
}

async function watch(w: ReturnType<typeof workerFolder>, command: string, opts: Parameters<typeof runWorker>[2] = {}) {
  const a = await runWorker(w, { command }, opts);
  if (a.status === undefined) throw new Error(`no status: ${a.stderr} ${a.refused ?? ''}`);
  return { ...a, changes: a.report.changes.map(brief), raw: a.report.changes };
}

describe("the worker's report", () => {
  it("reports created, changed, touched and deleted files, folders and links; the command's output and status pass through", async () => {
    const w = project();
    const r = await watch(
      w,
      'echo out; echo b > src/a.ts; touch -d 2020-01-01 keep.txt; rm gone.txt; mkdir -p new/empty; echo n > new/n.txt; ln -s ../keep.txt new/l; mkfifo new/fifo; exit 3',
    );
    expect([r.status, r.out, r.report.broken]).toEqual([3, 'out\n', undefined]);
    // Deletions first (deepest first), then the rest, parents before children; a FIFO is named, as special.
    expect(r.changes).toEqual([
      'D f gone.txt',
      'T f keep.txt',
      'C d new',
      'C d new/empty',
      'C s new/fifo',
      'C l new/l -> ../keep.txt',
      'C f new/n.txt',
      'M f src/a.ts',
    ]);
    const a = r.raw.find((c) => c.path === 'src/a.ts');
    expect([a?.base, a?.hash]).toEqual([md5('a\n'), md5('b\n')]);
  });

  it('a second run sees only what that command changed (the record kept between runs)', async () => {
    const w = project();
    await watch(w, 'echo 1 > out.txt');
    expect((await watch(w, 'true')).changes).toEqual([]);
    expect((await watch(w, 'echo 2 > out.txt')).changes).toEqual(['M f out.txt']);
  });

  it('never walks into skipped folders, never follows a link, and sends a hard link once', async () => {
    const w = project();
    const outside = tempDir();
    const r = await watch(
      w,
      `echo 2 > node_modules/x/i.js; ln -s ${outside} ext; echo x > ${outside}/f; echo bin > b1; ln b1 b2; mkdir -p target/debug/deps && echo o > target/debug/deps/o`,
    );
    expect(r.changes).toEqual(['C f b1', 'C f b2', `C l ext -> ${outside}`, 'C d target', 'C d target/debug']);
    expect(r.raw.find((c) => c.path === 'b2')?.hash).toBe(md5('bin\n'));
  });

  it('a sparse file travels as holes; mtimes keep more than microseconds', async () => {
    const w = project();
    const r = await watch(w, 'truncate -s 200M sparse.img && printf end >> sparse.img && touch -d "2024-01-02 03:04:05.123456789" sparse.img');
    const c = r.raw.find((x) => x.path === 'sparse.img');
    const st = statSync(c?.staged as string);
    expect(st.size).toBe(200 * 1024 * 1024 + 3);
    expect(st.blocks * 512).toBeLessThan(1024 * 1024);
    // A double carries about a quarter of a microsecond at today's times: more than the 6 digits of before.
    expect(Math.abs((c?.mtime ?? 0) - Number('1704164645.123456789'))).toBeLessThan(0.0000005);
  });

  it('a change in the same clock tick as the sync that wrote the file is still seen (the report waits the tick out)', async (ctx) => {
    // ext3 with 128-byte inodes keeps whole seconds, as HFS+ and old file systems do.
    const fs = coarseFileSystem();
    if (typeof fs === 'string') return ctx.skip(fs);
    try {
      const w = { dir: join(fs.path, 'work'), key: 'p', root: join(fs.path, 'work', 'p', '0') };
      mkdirSync(join(w.root, 'src'), { recursive: true });
      for (let i = 0; i < 4; i++) {
        writeFileSync(join(w.root, 'src', 'a.ts'), `${i % 10}\n`);
        const r = await watch(w, `printf '${(i + 1) % 10}\\n' > src/a.ts`);
        expect(r.changes, `round ${i}`).toEqual(['M f src/a.ts']);
      }
    } finally {
      fs.remove();
    }
  });

  it('a folder the command makes unreadable hides its files, which are not reported deleted', async () => {
    // Root reads any folder: as root, the worker program runs as the test workers' ordinary user, as a worker's owner would.
    const w = project();
    mkdirSync(join(w.root, 'old', 'x'), { recursive: true });
    writeFileSync(join(w.root, 'old', 'x', 'f'), '1\n');
    giveToWorker(join(w.dir, '..'));
    chmodSync(join(w.dir, '..'), 0o755);
    const r = await watch(w, 'chmod 000 src; chmod 444 old; mkdir -p n/m && echo 1 > n/m/f && chmod 444 n; echo x > keep.txt', {
      ...(isRoot() ? { wrap: ['runuser', '-u', workerUser(), '--'] } : {}),
    });
    // `src` cannot be read, `old`'s entries cannot be looked at (no x): neither's files are reported deleted.
    expect(
      r.raw.map((c) => `${c.op} ${c.path}`),
      r.stderr,
    ).toEqual(['M keep.txt', 'C n']);
  });

  it('perl without Digest::MD5 or Time::HiRes: a refusal the run can act on, not a crash', async () => {
    const w = project();
    const lib = tempDir();
    mkdirSync(join(lib, 'Digest'));
    writeFileSync(join(lib, 'Digest', 'MD5.pm'), 'die "no MD5 here\\n";\n');
    const r = await runWorker(w, { command: 'true' }, { perlArgs: [`-I${lib}`] });
    expect(r.exit).toBe(125);
    expect(r.refused).toMatch(/^the worker's perl lacks Time::HiRes or Digest::MD5/);
  });
});

/** A file system with whole-second times (a loop-mounted ext3 with 128-byte inodes), or why there is none. */
function coarseFileSystem(): { path: string; remove: () => void } | string {
  const dir = tempDir();
  const image = join(dir, 'fs.img');
  const path = join(dir, 'mnt');
  mkdirSync(path);
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' });
  run('truncate', ['-s', '16M', image]);
  const made = run('mkfs.ext3', ['-q', '-F', '-I', '128', image]);
  if (made.status !== 0) return `cannot make an ext3 file system here: ${made.stderr || made.error}`;
  const mounted = run('mount', ['-o', 'loop', image, path]);
  if (mounted.status !== 0) return `cannot mount a loop device here (needs root and /dev/loop*): ${mounted.stderr.trim()}`;
  return { path, remove: () => run('umount', [path]) };
}

// md5sum, not node's createHash: the hashes checked here come from the code under test (the worker's Perl and the
// report reader's createHash), so the expected ones come from an implementation outside both.
function md5(s: string): string {
  return execFileSync('md5sum', { input: s, encoding: 'utf8' }).split(' ')[0] as string;
}

describe('the report looks only at what changed (find since a marker), and misses nothing', () => {
  it("a change made in the copy outside a run, even with its mtime set back, is not the command's, and is the next base", async () => {
    const w = project();
    await watch(w, 'true');
    writeFileSync(join(w.root, 'keep.txt'), 'edited outside\n');
    execFileSync('touch', ['-d', '2020-01-01', join(w.root, 'keep.txt')]);
    expect((await watch(w, 'true')).changes).toEqual([]);
    const r = await watch(w, 'echo by-command > keep.txt');
    expect(r.changes).toEqual(['M f keep.txt']);
    expect(r.raw[0]?.base).toBe(md5('edited outside\n'));
  });

  it('deletions and moves the command makes are found from the folders that changed, at any depth', async () => {
    const w = project();
    mkdirSync(join(w.root, 'deep', 'er'), { recursive: true });
    writeFileSync(join(w.root, 'deep', 'er', 'x.txt'), 'x\n');
    await watch(w, 'true');
    const r = await watch(w, 'rm -rf deep && mv gone.txt moved.txt && rm src/a.ts');
    expect(r.changes).toEqual(['D f src/a.ts', 'D f gone.txt', 'D f deep/er/x.txt', 'D d deep/er', 'D d deep', 'C f moved.txt']);
  });

  it('without find on the worker, the whole tree is walked and the report is the same', async () => {
    const w = project();
    const bin = tempDir();
    for (const t of ['perl', 'bash', 'sh', 'cat', 'rm', 'mv', 'touch'])
      execFileSync('ln', ['-s', execFileSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).trim(), join(bin, t)]);
    const env = { PATH: bin, HOME: w.dir };
    await watch(w, 'true', { env });
    const r = await watch(w, 'echo b > src/a.ts; rm gone.txt', { env });
    expect(r.changes).toEqual(['D f gone.txt', 'M f src/a.ts']);
  });
});

describe('content asked for after the report', () => {
  it('a want is answered with the file, or with gone when it is no file any more (never left unanswered)', async () => {
    const w = project();
    const r = await runWorker(
      w,
      { command: 'touch keep.txt && mkdir -p out && echo o > out/o.txt' },
      {
        input: (f, write) => {
          if (f.type !== 'end') return;
          // keep.txt (a file), out (a folder), and an index past the end.
          write(Buffer.concat([frame('want', '1'), frame('want', '0'), frame('want', '99'), frame('bye')]));
        },
      },
    );
    const after = r.frames.slice(r.frames.findIndex((f) => f.type === 'end') + 1).map((f) => `${f.type} ${f.payload.toString().slice(0, 8)}`);
    expect(r.report.changes.map((c) => `${c.op} ${c.path}`)).toEqual(['T keep.txt', 'C out', 'C out/o.txt']);
    expect(after).toEqual(['gone 1', 'got 0 2', expect.stringMatching(/^dat /), expect.stringMatching(/^sum /), 'gone 99']);
  });
});
