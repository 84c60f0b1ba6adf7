// The Perl sparehand runs is `.pl` files (lib/perl-file.ts): each program as it is run compiles under `perl -cw`
// with no warning, every `.pl` file is in one of them, and a mistake in one is reported with its own file and line.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { perlName, perlSource } from '../../lib/perl-file.js';
import { PLATFORM_PROBE, WATCHER_PL as COPY_WATCHER_PL } from '../../lib/remote/worker/parts.js';
import { PROGRAM } from '../../lib/remote/worker/program.js';
import { PEEK_PL, TAKE_PL } from '../../lib/run/local-slots-pl.js';
import { WATCHER_PL } from '../../lib/watch/watcher-pl.js';

const lib = fileURLToPath(new URL('../../lib', import.meta.url));
const PROGRAMS = {
  'the worker program': PROGRAM,
  "the worker's copy watcher": COPY_WATCHER_PL,
  "worker check's platform probe": PLATFORM_PROBE,
  'the project watcher': WATCHER_PL,
  "the local slots' keeper (take)": TAKE_PL,
  "the local slots' keeper (peek)": PEEK_PL,
};

/** `perl -cw` of a program as `perl -e` runs it: what perl says (stderr) and its exit status. */
function check(text: string): { status: number | null; said: string } {
  const r = spawnSync('perl', ['-cw', '-e', text], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' } });
  return { status: r.status, said: r.stderr };
}

function plFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? plFiles(join(dir, e.name)) : e.name.endsWith('.pl') ? [join(dir, e.name)] : [],
  );
}

describe('the Perl, checked by perl', () => {
  it.each(Object.entries(PROGRAMS))('%s compiles under perl -cw, without a warning', (_, text) => {
    expect(check(text)).toEqual({ status: 0, said: '-e syntax OK\n' });
  });

  it('every .pl file under lib/ is in a program checked here, with its name', () => {
    const files = plFiles(lib).map((f) => `lib/${relative(lib, f)}`);
    expect(files.length).toBeGreaterThanOrEqual(16);
    const all = Object.values(PROGRAMS).join('\n');
    const named = new Set([...all.matchAll(/^# line \d+ "([^"]+)"$/gm)].map((m) => m[1]));
    for (const f of files) expect(named, f).toContain(f);
  });

  it('a mistake in a part is reported with its file and its own line', () => {
    const file = join(lib, 'remote', 'worker', 'claim.pl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => /^sub /.test(l));
    lines.splice(at, 0, 'my $x = ;');
    const broken = PROGRAM.replace(perlSource(perlName(file), readFileSync(file, 'utf8')), perlSource(perlName(file), lines.join('\n')));
    expect(broken).not.toBe(PROGRAM);
    const r = check(broken);
    expect(r.status).not.toBe(0);
    expect(r.said).toContain(`at lib/remote/worker/claim.pl line ${at + 1}`);
  });

  it('the .pl files run as they are: the platform probe answers', () => {
    expect(execFileSync('perl', ['-e', PLATFORM_PROBE], { encoding: 'utf8' })).toMatch(/^platform=linux \S+/);
  });
});
