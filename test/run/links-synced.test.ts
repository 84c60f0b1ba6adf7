// Links are files like any other for the sync (issue 36): a link the command deletes is deleted here, a link it
// replaces with a regular file is a regular file here, and a link it makes that leads outside the project is still
// refused. A real sshd whose sessions run as an ordinary user, the real CLI, and a project in cJSON's shape
// (test/fixtures/projects/so-links: `make` makes libcjson.so -> libcjson.so.1 -> libcjson.so.1.7.18).
import { cpSync, lstatSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sparehand } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { files, gitProject } from '../helpers/project.js';
import { sharedWorker } from '../helpers/worker-env.js';

const shared = sharedWorker();
const run = (proj: string, cmd: string) => sparehand(['run', '--', cmd], { env: shared.wh.env, cwd: proj });

describe('links are files like any other for the sync', () => {
  it("make, then make clean (libraries and their .so links, in cJSON's shape): the links come back, then go, with no conflict", async () => {
    const proj = gitProject({});
    cpSync(join(FIXTURES, 'projects', 'so-links'), proj, { recursive: true });
    execFileSync('git', ['add', '-A'], { cwd: proj });
    const made = await run(proj, 'make -s');
    expect(made.exitCode, made.stderr).toBe(0);
    expect(readlinkSync(join(proj, 'libcjson.so'))).toBe('libcjson.so.1');
    expect(readlinkSync(join(proj, 'libcjson_utils.so.1'))).toBe('libcjson_utils.so.1.7.18');
    expect(readFileSync(join(proj, 'libcjson.so'), 'utf8')).toBe('libcjson 1.7.18\n');
    const clean = await run(proj, 'make -s clean');
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(files(proj)).toEqual({ '.gitignore': expect.any(String), Makefile: expect.any(String) });
    expect(clean.stderr).toMatch(/, 0 conflicts\n/);
    expect(clean.stderr).not.toContain('link to nothing');
  });

  it('a tracked link the command replaces with a regular file is a regular file here; one it makes to a place outside is refused', async () => {
    const proj = gitProject({ 'v1.txt': 'one\n' });
    symlinkSync('v1.txt', join(proj, 'current'));
    execFileSync('git', ['add', '-A'], { cwd: proj });
    const r = await run(proj, 'rm current && cp v1.txt current && echo two >> current && ln -s ../../../.. up && ln -s /etc/passwd abs');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lstatSync(join(proj, 'current')).isFile()).toBe(true);
    expect(readFileSync(join(proj, 'current'), 'utf8')).toBe('one\ntwo\n');
    expect(files(proj)).toEqual({ 'v1.txt': 'one\n', current: 'one\ntwo\n' });
    expect(r.stderr).toContain('sparehand: refused: up was not brought back: it is a link to a place outside the project\n');
    expect(r.stderr).toContain('sparehand: refused: abs was not brought back: it is a link to a place outside the project\n');
    expect(r.stderr).not.toContain('conflict: ');
  });
});
