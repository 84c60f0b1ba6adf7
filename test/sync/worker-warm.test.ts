// A warm run on the worker (lib/remote/worker/main.pl): when its copy is untouched since the last run and nothing
// was sent but sparehand's own changes, the worker knows what the copy holds without walking it, and writes those
// changes to the record's log without loading the record (lib/remote/worker/report.pl). Each test changes the copy
// behind that shortcut's back — between runs, between the worker's look at its copy and the command, right after
// sparehand's own change, in a run that died — and the report must still say exactly what changed. Real perl, real
// folders, the frames a session sends (test/helpers/local-worker.ts).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../lib/remote/change.js';
import { frame } from '../../lib/remote/frames.js';
import { notBroughtBack, pruneNames } from '../../lib/remote/sync-rules.js';
import { tempDir } from '../helpers/context.js';
import { runWorker, workerFolder } from '../helpers/local-worker.js';

type Folder = ReturnType<typeof workerFolder>;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const brief = (c: Change) => `${c.op} ${c.type} ${c.path}`;

/** sparehand's own change: a file put there (as session.ts `go` sends it). */
function put(path: string, content: string): Buffer[] {
  const body = Buffer.from(content);
  const head = Buffer.from(`644 ${Date.now() / 1000} ${body.length}\n`);
  return [frame('put', Buffer.concat([head, Buffer.from(path)])), ...(body.length > 0 ? [frame('dat', body)] : [])];
}
const del = (path: string) => [frame('del', path)];

/** One warm run: what the worker said of its copy and what it reported. */
async function run(w: Folder, command: string, opts: Parameters<typeof runWorker>[2] = {}) {
  const a = await runWorker(w, { command, warm: true, prune: pruneNames(notBroughtBack({})) }, opts);
  if (a.status === undefined) throw new Error(`no status: ${a.stderr} ${a.refused ?? ''}`);
  return { copy: a.copy, changes: a.report.changes.map(brief), raw: a.report.changes, out: a.out };
}

/** A copy with a record, run twice: the second run found it untouched. `env`: the worker program's, for each run. */
async function warmCopy(env?: (w: Folder) => NodeJS.ProcessEnv): Promise<Folder> {
  const w = workerFolder();
  mkdirSync(join(w.root, 'src', 'deep'), { recursive: true });
  writeFileSync(join(w.root, 'a.txt'), 'a\n');
  writeFileSync(join(w.root, 'src', 'b.txt'), 'b\n');
  writeFileSync(join(w.root, 'src', 'deep', 'c.txt'), 'c\n');
  await run(w, 'true', { env: env?.(w) });
  const second = await run(w, 'true', { unsent: true, env: env?.(w) });
  expect([second.copy, second.changes]).toEqual(['same g1', []]);
  return w;
}

/**
 * A find first on the PATH (the login shell's too: a profile in HOME puts it there) that writes what it was asked
 * to `asked`; `refuse`: one that refuses -regextype as a Mac's and BusyBox's do.
 */
function findThatTells(refuse: boolean): { asked: string; env: (w: Folder) => NodeJS.ProcessEnv } {
  const bin = tempDir('sparehand-find-');
  const asked = join(bin, 'asked');
  const real = execFileSync('sh', ['-c', 'command -v find']).toString().trim();
  const no = refuse ? `for a in "$@"; do [ "$a" = -regextype ] && { echo 'find: -regextype: unknown primary or operator' >&2; exit 1; }; done\n` : '';
  writeFileSync(join(bin, 'find'), `#!/bin/sh\necho "$*" >> ${asked}\n${no}exec ${real} "$@"\n`, { mode: 0o755 });
  return {
    asked,
    env: (w) => {
      for (const f of ['.profile', '.bash_profile']) writeFileSync(join(w.dir, f), `PATH=${bin}:$PATH; export PATH\n`);
      return { PATH: `${bin}:${process.env.PATH}`, HOME: w.dir };
    },
  };
}

/** The walks find was asked for (not the claim's, which prunes nothing). */
const walks = (asked: string) =>
  readFileSync(asked, 'utf8')
    .split('\n')
    .filter((l) => l.includes('-cnewer') && l.includes('-print0'));

describe('a warm run on the worker', () => {
  it("what changes in the copy after the worker looked at it and before the command is the command's: reported", async () => {
    const w = await warmCopy();
    const r = await run(w, 'true', {
      unsent: true,
      // A process an earlier command left behind, writing and deleting once the worker said its copy is untouched.
      beforeGo: () => {
        writeFileSync(join(w.root, 'late.txt'), 'late\n');
        writeFileSync(join(w.root, 'a.txt'), 'rewritten\n');
        rmSync(join(w.root, 'src', 'deep'), { recursive: true });
      },
    });
    expect(r.copy).toBe('same g1');
    // (Deletions first, deepest first.)
    expect(r.changes).toEqual(['D f src/deep/c.txt', 'D d src/deep', 'M f a.txt', 'C f late.txt']);
    // And the record holds them: the next run finds nothing more.
    expect((await run(w, 'true', { unsent: true })).changes).toEqual([]);
  });

  it('a file sparehand put there that a process rewrites right after: the rewrite is reported, not taken for the put', async () => {
    const w = await warmCopy();
    const file = join(w.root, 'src', 'b.txt');
    // Rewrites the file the moment it holds what sparehand put (a process left behind, polling).
    const poller = spawn(
      'perl',
      [
        '-e',
        'my $f = shift; for (1 .. 20000) { if (open(my $h, "<", $f)) { my $l = <$h> // ""; if ($l eq "put\\n") { open(my $o, ">", $f); print $o "rewritten\\n"; exit 0 } } select(undef, undef, undef, 0.0002) } exit 1',
        file,
      ],
      { stdio: 'ignore' },
    );
    const polled = new Promise<number | null>((r) => poller.on('exit', r));
    const r = await run(w, 'sleep 0.2', { unsent: true, own: put('src/b.txt', 'put\n') });
    expect(await polled).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('rewritten\n');
    const b = r.raw.find((c) => c.path === 'src/b.txt');
    expect([r.copy, b?.op, b?.base, b?.hash]).toEqual(['same g1', 'M', md5('put\n'), md5('rewritten\n')]);
  });

  it("a file changed there between runs with its mtime set back is no warm copy: not reported as the command's", async () => {
    const w = await warmCopy();
    const file = join(w.root, 'a.txt');
    const { atime, mtime } = statSync(file);
    writeFileSync(file, 'x\n');
    utimesSync(file, atime, mtime);
    // (Even when the client says it sent nothing: the copy is not as the last run left it.)
    const r = await run(w, 'true', { unsent: true });
    expect([r.copy, r.changes]).toEqual(['changed g1', []]);
    expect((await run(w, 'cat a.txt', { unsent: true })).out).toBe('x\n');
    // The record took the change as what the copy held: the command's own edit of it is based on it.
    const edit = await run(w, 'echo y > a.txt', { unsent: true });
    expect(edit.raw.map((c) => [brief(c), c.base])).toEqual([['M f a.txt', md5('x\n')]]);
  });

  it("a file and a folder deleted there between runs: no warm copy, and not reported as the command's", async () => {
    const w = await warmCopy();
    rmSync(join(w.root, 'a.txt'));
    rmSync(join(w.root, 'src', 'deep'), { recursive: true });
    const r = await run(w, 'true', { unsent: true });
    expect([r.copy, r.changes]).toEqual(['changed g1', []]);
    // The record knows they are gone: made again by a command, they are new.
    const again = await run(w, 'echo a > a.txt; mkdir src/deep', { unsent: true });
    expect([again.copy, again.changes]).toEqual(['same g1', ['C f a.txt', 'C d src/deep']]);
  });

  it('a run whose worker program died during the command: the next run walks, and the record has what that command did', async () => {
    const w = await warmCopy();
    // The program is the command's parent: killed outright, it writes nothing more (no report, no marker).
    await runWorker(w, { command: 'echo w > w.txt; mkdir d; echo y > d/y; rm a.txt; kill -KILL $PPID; sleep 1', warm: true }, { unsent: true });
    const next = await run(w, 'true', { unsent: true });
    expect([next.copy, next.changes]).toEqual(['changed g1', []]);
    const after = await run(w, 'rm -r w.txt d; echo a > a.txt', { unsent: true });
    expect([after.copy, after.changes]).toEqual(['same g1', ['D f w.txt', 'D f d/y', 'D d d', 'C f a.txt']]);
  });

  it('a run whose record could not be written: the next one walks the whole copy', async () => {
    const w = await warmCopy();
    // Folders where the record and its log are written first: the report is sent, the record stays as it was.
    const blocks = ['0.tree.new', '0.tree.log.new'].map((b) => join(w.root, '..', b));
    const made = await run(w, `echo z > z.txt; mkdir ${blocks.join(' ')}`, { unsent: true });
    expect(made.changes).toEqual(['C f z.txt']);
    const gone = await run(w, 'rm z.txt', { unsent: true });
    for (const b of blocks) rmSync(b, { recursive: true });
    expect(gone.changes).toEqual(['D f z.txt']);
  });

  it("sparehand's own changes go to the record's log: what a command then changes is reported against them", async () => {
    const w = await warmCopy();
    const log = join(w.root, '..', '0.tree.log');
    expect((await run(w, 'true', { unsent: true, own: put('a.txt', 'v1\n') })).changes).toEqual([]);
    const stale = readFileSync(log);
    const second = await run(w, 'cat a.txt', { unsent: true, own: [...put('a.txt', 'v2\n'), ...del('src/b.txt'), ...put('new/n.txt', 'n\n')] });
    expect([second.copy, second.out, second.changes]).toEqual(['same g1', 'v2\n', []]);
    expect(existsSync(log)).toBe(true);
    const r = await run(w, 'echo v3 > a.txt; echo b > src/b.txt; rm -r new', { unsent: true });
    expect(r.raw.map((c) => [brief(c), c.base])).toEqual([
      ['D f new/n.txt', md5('n\n')],
      ['D d new', undefined],
      ['M f a.txt', md5('v2\n')],
      ['C f src/b.txt', undefined],
    ]);
    // Many changes at once: the record is saved whole with them, the log gone; the next run reads it right.
    const many = Array.from({ length: 1500 }, (_, i) => put(`many/f${i}.txt`, `${i}\n`)).flat();
    expect((await run(w, 'true', { unsent: true, own: many })).changes).toEqual([]);
    expect(existsSync(log)).toBe(false);
    // A log left from before (a run stopped before it went) is not the saved record's: not applied.
    writeFileSync(log, stale);
    const last = await run(w, 'echo x > many/f7.txt; rm many/f8.txt; echo v4 > a.txt', { unsent: true });
    expect(last.raw.map((c) => [brief(c), c.base])).toEqual([
      ['D f many/f8.txt', md5('8\n')],
      ['M f a.txt', md5('v3\n')],
      ['M f many/f7.txt', md5('7\n')],
    ]);
  });

  it("a find without -regextype (a Mac's, BusyBox's): the folders it never walks into go as -name tests, the report the same", async () => {
    const find = findThatTells(true);
    const w = await warmCopy(find.env);
    const env = find.env(w);
    const r = await run(w, 'mkdir -p node_modules/x .venv && echo 1 > node_modules/x/i.js && echo 2 > .venv/v && echo n > new.txt', { unsent: true, env });
    expect([r.copy, r.changes]).toEqual(['same g1', ['C f new.txt']]);
    expect((await run(w, 'echo 3 > node_modules/x/i.js; rm new.txt', { unsent: true, env })).changes).toEqual(['D f new.txt']);
    expect(walks(find.asked).length).toBeGreaterThan(0);
    for (const l of walks(find.asked)) expect(l).toMatch(/^\. \( -name \.\[sS\]\[sS\]\[hH\] -o .*-name node_modules .*\) -prune -o -cnewer /);
  });

  it('GNU find gets the folders it never walks into as one regular expression', async () => {
    const find = findThatTells(false);
    const w = await warmCopy(find.env);
    const r = await run(w, 'mkdir -p node_modules/x && echo 1 > node_modules/x/i.js && echo n > new.txt', { unsent: true, env: find.env(w) });
    expect(r.changes).toEqual(['C f new.txt']);
    expect(walks(find.asked).length).toBeGreaterThan(0);
    for (const l of walks(find.asked)) expect(l).toMatch(/^\. -regextype posix-extended -regex \.\*\/\(.*\|node_modules\|.*\) -prune -o -cnewer /);
  });
});
