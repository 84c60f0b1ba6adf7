// Writes here are made relative to folders already opened, links are judged by where their whole chain ends, and
// a file replaced is replaced by one rename (issue 35 items 4 and 5). A real sshd whose sessions run as an ordinary
// user, the real CLI; real racing processes here.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { gitProject } from '../helpers/project.js';
import { sharedWorker } from '../helpers/worker-env.js';

const shared = sharedWorker();
const run = (proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: shared.wh.env, cwd: proj });

describe('links are judged by where their whole chain ends', () => {
  it('x -> . and up -> x/.. (each inside on its own text) never make a way to the parent; a link here counts too', async () => {
    const proj = gitProject({ 'src/a.ts': 'a\n' });
    symlinkSync('.', join(proj, 'top'));
    execFileSync('git', ['add', '-A'], { cwd: proj });
    const r = await run(proj, 'ln -s . x && ln -s x/.. up && ln -s x/x/src/a.ts ok && ln -s top/.. esc && ln -s up/etc deeper');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readlinkSync(join(proj, 'x'))).toBe('.');
    expect(readlinkSync(join(proj, 'ok'))).toBe('x/x/src/a.ts');
    for (const l of ['up', 'esc', 'deeper']) {
      expect(lstatSync(join(proj, l), { throwIfNoEntry: false }), l).toBeUndefined();
      expect(r.stderr).toContain(`sparehand: refused: ${l} was not brought back: it is a link to a place outside the project\n`);
    }
  });
});

describe('writes here are made through folders already opened', () => {
  it('a local process that swaps a folder for a link to ../outside while 4,000 files are written: nothing lands outside, the apply stops there with one line', async () => {
    const parent = tempDir('sparehand-race-');
    const proj = join(parent, 'proj');
    const outside = join(parent, 'outside');
    mkdirSync(proj);
    mkdirSync(outside);
    execFileSync('git', ['init', '-q'], { cwd: proj });
    // The racer: once the 101st file is here, the folder is renamed away and a link to ../outside put in its place.
    const racer = spawn(
      'perl',
      [
        '-e',
        'select(undef, undef, undef, 0.0002) until -e "dist/f0100"; rename("dist", "dist.away") or die; symlink("../outside", "dist") or die; open(my $f, ">", "swapped")',
      ],
      { cwd: proj, stdio: 'inherit' },
    );
    const ended = new Promise((resolve) => racer.on('exit', resolve));
    try {
      const r = await run(proj, 'mkdir dist && for i in $(seq -w 0 3999); do echo $i > dist/f$i; done');
      expect(r.exitCode, r.stderr).toBe(0);
      expect(await ended).toBe(0);
      expect(existsSync(join(proj, 'swapped'))).toBe(true);
      expect(readdirSync(outside)).toEqual([]);
      const landed = readdirSync(join(proj, 'dist.away')).length;
      expect(landed).toBeGreaterThanOrEqual(101);
      expect(landed).toBeLessThan(4000);
      expect(r.stderr.match(/sparehand: conflict: /g)).toHaveLength(1);
      expect(r.stderr).toMatch(
        /sparehand: conflict: dist was moved or replaced here while the command's changes were written into it .*the rest was not written: it stays in the worker's copy \(w0:/,
      );
    } finally {
      racer.kill();
    }
  });
});
