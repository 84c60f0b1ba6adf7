// The fingerprint brought up to date from the watcher's journal (lib/send/fingerprint-update.ts) must be the one a
// look at every file gives (lib/send/warm-send.ts fingerprint): rounds of seeded random changes to a real git
// project — edits with the mtime put back, files and folders made, deleted, renamed, moved in from outside and out,
// modes changed, a file where a folder was, changes in an ignored folder — each followed by both, compared whole.
// A real watcher (perl, inotify), a real git.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../lib/config.js';
import { updatedFingerprint } from '../../lib/send/fingerprint-update.js';
import type { Fingerprint } from '../../lib/send/fingerprint-parts.js';
import { fingerprint } from '../../lib/send/warm-send.js';
import { keepWarm, takeWarm } from '../../lib/send/warm-kept.js';
import { canWatch, changesSince } from '../../lib/watch/journal.js';
import { tempDir } from '../helpers/context.js';
import { stopWatchers } from './helpers.js';
import { seededRandom } from '../helpers/seeded.js';

const env = { PATH: process.env.PATH, HOME: tempDir('sparehand-watch-home-'), SPAREHAND_WATCH: 'on' };
const config: Config = {};
const scope = { keep: [], inputs: [] };
const roots: string[] = [];
afterAll(() => stopWatchers(roots));

function project(): string {
  const root = tempDir('sparehand-watched-');
  roots.push(root);
  for (let d = 0; d < 4; d++) {
    mkdirSync(join(root, 'src', `d${d}`), { recursive: true });
    for (let f = 0; f < 5; f++) writeFileSync(join(root, 'src', `d${d}`, `f${f}.js`), `export const v = ${d * 10 + f};\n`);
  }
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'out.js'), 'built\n');
  writeFileSync(join(root, '.gitignore'), 'dist/\n*.log\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync('git', ['add', '-A'], { cwd: root });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start'], { cwd: root });
  return root;
}

/** Every path below `dir` (relative), folders ending in '/'. */
function listing(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = dir ? `${dir}/${e.name}` : e.name;
    if (p === '.git' || p === '.sparehand') continue;
    if (e.isDirectory()) out.push(`${p}/`, ...listing(root, p));
    else out.push(p);
  }
  return out;
}

/** One random change to the project. */
function change(root: string, rnd: () => number, outside: string, n: number): string {
  const all = listing(root).filter((p) => !p.startsWith('dist/'));
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rnd() * xs.length)];
  const files = all.filter((p) => !p.endsWith('/') && lstatSync(join(root, p)).isFile());
  const dirs = ['', ...all.filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1))];
  const at = (d: string | undefined, name: string) => (d ? `${d}/${name}` : name);
  const kinds = [
    'edit-mtime-back',
    'make',
    'make-tree',
    'delete',
    'delete-tree',
    'rename',
    'rename-dir',
    'move-out',
    'move-in',
    'chmod',
    'chmod-dir',
    'file-for-dir',
    'ignored',
    'log',
    'link',
    'append',
  ];
  const kind = pick(kinds) as string;
  const f = pick(files);
  const d = pick(dirs);
  switch (kind) {
    case 'edit-mtime-back': {
      if (!f) return 'none';
      const st = statSync(join(root, f));
      writeFileSync(join(root, f), 'x'.repeat(st.size));
      utimesSync(join(root, f), st.atime, st.mtime);
      return `${kind} ${f}`;
    }
    case 'append':
      if (!f) return 'none';
      writeFileSync(join(root, f), `more ${n}\n`, { flag: 'a' });
      return `${kind} ${f}`;
    case 'make':
      writeFileSync(join(root, at(d, `new${n}.js`)), `new ${n}\n`);
      return `${kind} ${at(d, `new${n}.js`)}`;
    case 'make-tree': {
      const top = at(d, `tree${n}`);
      mkdirSync(join(root, top, 'a', 'b'), { recursive: true });
      writeFileSync(join(root, top, 'a', 'b', 'deep.js'), 'deep\n');
      writeFileSync(join(root, top, 'top.js'), 'top\n');
      mkdirSync(join(root, top, 'empty'));
      return `${kind} ${top}`;
    }
    case 'delete':
      if (!f) return 'none';
      rmSync(join(root, f));
      return `${kind} ${f}`;
    case 'delete-tree':
      if (!d) return 'none';
      rmSync(join(root, d), { recursive: true });
      return `${kind} ${d}`;
    case 'rename':
      if (!f) return 'none';
      renameSync(join(root, f), join(root, `${f}.moved${n}`));
      return `${kind} ${f}`;
    case 'rename-dir': {
      if (!d) return 'none';
      const to = `moved${n}`;
      renameSync(join(root, d), join(root, to));
      return `${kind} ${d} → ${to}`;
    }
    case 'move-out':
      if (!d) return 'none';
      renameSync(join(root, d), join(outside, `out${n}`));
      return `${kind} ${d}`;
    case 'move-in': {
      const src = join(outside, `in${n}`);
      mkdirSync(join(src, 'sub'), { recursive: true });
      writeFileSync(join(src, 'sub', 'x.js'), 'x\n');
      renameSync(src, join(root, at(d, `in${n}`)));
      return `${kind} ${at(d, `in${n}`)}`;
    }
    case 'chmod':
      if (!f) return 'none';
      chmodSync(join(root, f), 0o755);
      return `${kind} ${f}`;
    case 'chmod-dir':
      if (!d) return 'none';
      chmodSync(join(root, d), 0o750);
      return `${kind} ${d}`;
    case 'file-for-dir':
      if (!d) return 'none';
      rmSync(join(root, d), { recursive: true });
      writeFileSync(join(root, d), 'a file now\n');
      return `${kind} ${d}`;
    case 'ignored':
      mkdirSync(join(root, 'dist', `x${n}`), { recursive: true });
      writeFileSync(join(root, 'dist', `x${n}`, 'o.js'), 'ignored\n');
      return kind;
    case 'log':
      writeFileSync(join(root, at(d, `run${n}.log`)), 'log\n');
      return `${kind} ${at(d, `run${n}.log`)}`;
    case 'link':
      symlinkSync('src', join(root, at(d, `link${n}`)));
      return `${kind} ${at(d, `link${n}`)}`;
  }
  return 'none';
}

const sorted = (paths: Map<string, string>) => [...paths].sort(([a], [b]) => (a < b ? -1 : 1));
const shape = (fp: Fingerprint) => ({ base: fp.base, paths: sorted(fp.paths) });

/** The fingerprint kept (as a run keeps it) and taken back (as the next run takes it). */
function keptAgain(root: string, fp: Fingerprint) {
  expect(keepWarm(root, 'c0', 'gen', fp, [], 0)).toBe(true);
  const w = takeWarm(root, 'c0');
  expect(w).toBeDefined();
  return w as NonNullable<typeof w>;
}

/**
 * A fingerprint whose mark a watcher keeps, kept: a first one starts a watcher (or, when what git ignores as a
 * whole changed, a new one); once it has said it is ready, the next keeps its mark.
 */
async function watched(root: string) {
  for (let i = 0; i < 300; i++) {
    const kept = keptAgain(root, (await fingerprint(root, env, config, scope)) as Fingerprint);
    if (kept.watch) return kept;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no watcher came');
}

describe.runIf(canWatch(env))('the watched fingerprint', () => {
  it("sees what an excludes file outside the project (the project's core.excludesFile) stops or starts hiding", async () => {
    const root = project();
    const excludes = join(tempDir('sparehand-excludes-'), 'ignore');
    writeFileSync(excludes, '');
    execFileSync('git', ['config', 'core.excludesFile', excludes], { cwd: root });
    writeFileSync(join(root, 'secret.txt'), 'mine\n');
    const kept = await watched(root);
    expect(kept.paths().has('secret.txt')).toBe(true);
    // Nothing in the project changes: only the file outside, which no watcher of the project sees.
    writeFileSync(excludes, 'secret.txt\n');
    const since = await changesSince(root, kept.watch);
    expect(since).toBeDefined();
    const updated = await updatedFingerprint(root, env, config, scope, kept, since as NonNullable<typeof since>);
    const whole = (await fingerprint(root, { ...env, SPAREHAND_WATCH: 'off' }, config, scope)) as Fingerprint;
    expect(whole.paths.has('secret.txt')).toBe(false);
    // Either it sees the change or it says it cannot (and the run looks at everything): never the stale list.
    if (updated) expect(sorted(updated.paths)).toEqual(sorted(whole.paths));
  });

  it('asks git once when the shortcut asked and then cannot answer (a folder newly ignored as a whole)', async () => {
    const root = project();
    mkdirSync(join(root, 'gen'));
    writeFileSync(join(root, 'gen', 'made.js'), 'made\n');
    const kept = await watched(root);
    // git through a wrapper that writes down each call.
    const bin = tempDir('sparehand-git-calls-');
    const calls = join(bin, 'calls');
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    writeFileSync(join(root, '.gitignore'), 'dist/\n*.log\ngen/\n');
    const now = (await fingerprint(root, { ...env, PATH: `${bin}:${env.PATH}` }, config, scope, kept)) as Fingerprint;
    expect(now.looked).toBe('walked');
    expect([now.paths.has('gen/made.js'), kept.paths().has('gen/made.js')]).toEqual([false, true]);
    const asked = readFileSync(calls, 'utf8').trim().split('\n');
    expect(asked.filter((c) => c.includes('ls-files')).length, asked.join('; ')).toBe(1);
    expect(asked.filter((c) => c.includes('rev-parse')).length, asked.join('; ')).toBeLessThanOrEqual(1);
  });

  for (const seed of [1, 2, 3]) {
    it(`is the whole walk's after every round of changes (seed ${seed})`, async () => {
      const root = project();
      const outside = tempDir('sparehand-outside-');
      const rnd = seededRandom(seed);
      let kept = await watched(root);
      let quick = 0;
      let laid = 0;
      for (let round = 0; round < 25; round++) {
        const did: string[] = [];
        const count = 1 + Math.floor(rnd() * 4);
        for (let k = 0; k < count; k++) did.push(change(root, rnd, outside, round * 10 + k));
        const since = await changesSince(root, kept.watch);
        expect(since, `the watcher answers after ${did.join(', ')}`).toBeDefined();
        const updated = await updatedFingerprint(root, env, config, scope, kept, since as NonNullable<typeof since>);
        const whole = (await fingerprint(root, { ...env, SPAREHAND_WATCH: 'off' }, config, scope)) as Fingerprint;
        if (updated) {
          quick++;
          if (updated.delta?.size) laid++;
          // Its paths must be the walk's; its hash (one of its own once laid over the kept one) the kept one's
          // exactly when nothing changed: what a run compares to skip the send.
          expect(shape(updated).paths, `round ${round}: ${did.join(', ')}`).toEqual(shape(whole).paths);
          expect(updated.base).toBe(whole.base);
          expect(updated.hash === kept.hash, `round ${round}: the hash says whether anything changed`).toBe(
            JSON.stringify(sorted(kept.paths())) === JSON.stringify(sorted(whole.paths)),
          );
          kept = keptAgain(root, updated);
          // And so must what was kept of it, as the next run reads it.
          expect(sorted(kept.paths()), `round ${round} kept`).toEqual(sorted(whole.paths));
        } else {
          // Only when what git ignores changed (a .log made or gone, the .gitignore): then the caller looks at everything.
          expect(
            did.some((x) => /log|gitignore|delete-tree|rename-dir|move-out|file-for-dir/.test(x)),
            `round ${round} fell back: ${did.join(', ')}`,
          ).toBe(true);
          kept = await watched(root);
        }
      }
      expect(quick).toBeGreaterThan(10);
      // Some rounds were laid over the kept text without building the whole map.
      expect(laid).toBeGreaterThan(2);
    }, 120_000);
  }
});
