// Property (issue 21): a rewritten command means what the original meant. Commands generated from a grammar of
// safe pieces (heavy `make` targets that print to stdout and stderr, fail or write files; echo, printf,
// true/false, exit N; a `git` part that stays here; redirections to files in the project, pipes, &&, ||, ;,
// subshells) run in real bash as written and as rewritten, each in a project of its own, and must give the same
// stdout, the same stderr less `sparehand:` lines, the same exit status and the same files in the project.
//
// Two tiers. Against a real worker (a test sshd), the rewrite runs the built CLI's `sparehand run --or-local`:
// REAL commands (SPAREHAND_MEANS_RUNS, 80 by default: each is a real run, about half a second). Then MANY more
// (SPAREHAND_MEANS_MANY, 1500 by default) with a stand-in for `sparehand run` that runs the sent part in a shell
// in the same folder and then prints a `sparehand:` summary line on stderr, as the real one does: it checks the
// rewrite's shell (where its pipes, redirects and operators put things), which is the classifier's part.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { bashQuote, classify, rewriteCommand } from '../../lib/classify/index.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { workerHome } from '../helpers/worker-env.js';
import { startSshd } from '../helpers/sshd.js';
import { workerOwnerHome } from '../helpers/worker-home.js';
import { seededRandom } from '../helpers/seeded.js';

const REAL = Number(process.env.SPAREHAND_MEANS_RUNS ?? 80);
const MANY = Number(process.env.SPAREHAND_MEANS_MANY ?? 1500);
// SPAREHAND_MEANS_DEBUG=FILE: the first differing cases, whole, written there.

const MAKEFILE = [
  'out:',
  '\t@echo out1; echo out2',
  'err:',
  '\t@echo o1; echo e1 >&2; echo o2',
  'fail:',
  '\t@echo f1; echo bad >&2; exit 3',
  'write:',
  '\t@echo made > made.txt; echo wrote',
  '',
].join('\n');

const HEAVY = ['make -s out', 'make -s err', 'make -s fail', 'make -s write'];
const LIGHT = ['echo w', 'printf "p%s\\n" q', 'true', 'false', 'echo x >&2', 'cat made.txt', 'exit 4', 'git rev-parse --is-inside-work-tree'];
// (`N`: a file of its own for each redirect that truncates, or two stages of one pipeline race to write it.)
const REDIRECT = ['', '', '', ' > fN.txt', ' >> log.txt', ' 2> eN.txt', ' 2>&1', ' > fN.txt 2>&1', ' 2>/dev/null', ' &> aN.txt', ' 2>&1 > fN.txt'];
// (Not `| head -1`: whether the writer then dies of SIGPIPE is a race, here as there.)
const PIPE = ['', '', '', ' | tail -1', ' | cat', ' | wc -l', ' |& cat'];
const JOIN = [' && ', ' || ', '; '];

/** One command from the grammar, with at least one heavy part. */
function command(next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  let files = 0;
  const redirect = () => pick(REDIRECT).replace('N', () => String(++files));
  const simple = (heavy: boolean): string => pick(heavy ? HEAVY : LIGHT) + redirect() + pick(PIPE);
  const part = (heavy: boolean, depth: number): string => {
    if (depth < 1 && next() < 0.2) {
      const n = 1 + Math.floor(next() * 2);
      const inner = Array.from({ length: n }, (_, i) => part(heavy && i === 0, depth + 1));
      return `(${inner.join(pick(JOIN))})${redirect()}${pick(PIPE)}`;
    }
    return simple(heavy);
  };
  const n = 1 + Math.floor(next() * 3);
  const at = Math.floor(next() * n);
  return Array.from({ length: n }, (_, i) => part(i === at, 0)).reduce((all, p) => all + pick(JOIN) + p);
}

/** Every file in the project (not .git, not sparehand's own folder) with its content. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (rel === '.git' || rel === '.sparehand') continue;
      if (statSync(p).isDirectory()) walk(p);
      else out[rel] = lines(readFileSync(p, 'utf8')).join('\n');
    }
  };
  walk(dir);
  return out;
}

// Text compared as its lines, sorted: a pipeline whose stages write to one place (`(make | cat) |& cat`)
// interleaves them differently from one run to the next, here as on a worker. A line sparehand put in the place
// of the command's (`2>&1 | tail -1`), or a line missing, still shows.
const lines = (s: string): string[] => s.split('\n').sort();
const lessOwn = (s: string): string[] => lines(s).filter((l) => !l.startsWith('sparehand:'));

/** The commands that are rewritten, with their rewrite by `invocation` (the others run as written: nothing to compare). */
function cases(seed: number, count: number, invocation: string): Array<{ command: string; rewrite: string }> {
  const next = seededRandom(seed);
  const out: Array<{ command: string; rewrite: string }> = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const c = command(next);
    if (seen.has(c)) continue;
    seen.add(c);
    const k = classify(c);
    if (k.wrap) out.push({ command: c, rewrite: rewriteCommand(k, invocation) });
  }
  return out;
}

describe('rewritten commands mean what the originals mean', () => {
  it(`against a real worker: ${REAL} generated commands, as written and through sparehand run`, async () => {
    // (A worker owner's HOME of its own: this machine's profile prints what it likes on a login shell's stderr.)
    const sshd = await startSshd({ home: workerOwnerHome() });
    const wh = workerHome([sshd], { slots: 4 });
    try {
      const list = cases(21, REAL, `${bashQuote(process.execPath)} ${bashQuote(BIN)}`);
      expect(list.length).toBe(REAL);
      const env = { ...wh.env, LANG: 'C.UTF-8' };
      const run = async (cmd: string) => {
        const dir = gitProject({ Makefile: MAKEFILE });
        const r = await execa('bash', ['-c', cmd], { cwd: dir, env, extendEnv: false, reject: false, stripFinalNewline: false });
        ranThere += (r.stderr as string).split('\n').filter((l) => l.startsWith('sparehand: ran on w0:')).length;
        return { exit: r.exitCode, stdout: lines(r.stdout as string), stderr: lessOwn(r.stderr as string), files: files(dir) };
      };
      let ranThere = 0;
      const results: Array<{ command: string; rewrite: string; ok: boolean; here: unknown; there: unknown }> = [];
      // Four at a time (the worker's slots).
      for (let at = 0; at < list.length; at += 4) {
        await Promise.all(
          list.slice(at, at + 4).map(async (c) => {
            const [here, there] = await Promise.all([run(c.command), run(c.rewrite)]);
            results.push({ ...c, ok: JSON.stringify(here) === JSON.stringify(there), here, there });
          }),
        );
      }
      const bad = results.filter((r) => !r.ok);
      if (process.env.SPAREHAND_MEANS_DEBUG) writeFileSync(process.env.SPAREHAND_MEANS_DEBUG, JSON.stringify(bad.slice(0, 5), null, 1));
      // Every rewrite ran its parts on the worker (none fell back to running here).
      expect(ranThere).toBeGreaterThanOrEqual(list.length);
      expect(bad.slice(0, 3).map(({ command, rewrite, here, there }) => ({ command, rewrite, here, there }))).toEqual([]);
    } finally {
      await wh.close();
      await sshd.stop();
    }
  }, 240_000);

  it(`${MANY} generated commands, the rewrite's shell checked with a stand-in for sparehand run`, async () => {
    const dir = tempDir('sparehand-means-');
    // As `sparehand run` does: the part runs in a shell of its own (a subshell of the stand-in's new bash) in the
    // same folder, then a summary line on stderr.
    const fake = join(dir, 'fake');
    writeFileSync(fake, '#!/bin/bash\n(eval "$4"); s=$?\necho "sparehand: ran on fake: sync 0.1s, run 0.0s, 0 files back, 0 conflicts" >&2\nexit $s\n', {
      mode: 0o755,
    });
    const list = cases(4, MANY, bashQuote(fake));
    expect(list.length).toBe(MANY);
    const script: string[] = [];
    for (const [i, c] of list.entries()) {
      for (const [side, cmd] of [
        ['a', c.command],
        ['b', c.rewrite],
      ] as const) {
        const p = join(dir, String(i), side);
        mkdirSync(join(p, 'proj'), { recursive: true });
        writeFileSync(join(p, 'proj', 'Makefile'), MAKEFILE);
        script.push(`cd ${bashQuote(join(p, 'proj'))} && bash -c ${bashQuote(cmd)} >../out 2>../err </dev/null; echo $? >../status`);
      }
    }
    execFileSync('git', ['init', '-q', dir]);
    // In two shells at once (each case's two sides in the same one).
    const half = Math.ceil(script.length / 4) * 2;
    await Promise.all(
      [script.slice(0, half), script.slice(half)].map((part, i) => {
        writeFileSync(join(dir, `all${i}.sh`), `${part.join('\n')}\n`);
        return execa('bash', [join(dir, `all${i}.sh`)], { cwd: dir, stdio: 'ignore', timeout: 300_000 });
      }),
    );
    const seen = (p: string) => ({
      exit: readFileSync(join(p, 'status'), 'utf8'),
      stdout: lines(readFileSync(join(p, 'out'), 'utf8')),
      stderr: lessOwn(readFileSync(join(p, 'err'), 'utf8')),
      files: files(join(p, 'proj')),
    });
    const bad = list
      .map((c, i) => ({ ...c, here: seen(join(dir, String(i), 'a')), there: seen(join(dir, String(i), 'b')) }))
      .filter((r) => JSON.stringify(r.here) !== JSON.stringify(r.there));
    if (process.env.SPAREHAND_MEANS_DEBUG) writeFileSync(process.env.SPAREHAND_MEANS_DEBUG, JSON.stringify(bad.slice(0, 5), null, 1));
    expect(bad.slice(0, 3)).toEqual([]);
  }, 240_000);
});
