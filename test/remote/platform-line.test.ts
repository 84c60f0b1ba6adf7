// The worker's platform line (lib/remote/worker/platform.pl), sent by every run: its architecture is uname's machine,
// read on Linux (x86_64, aarch64) through the system call itself, without loading POSIX (about 6 ms of every run's
// Perl start, docs/performance.md); the same answer as POSIX::uname() and `uname -m`.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PLATFORM_PL } from '../../lib/remote/worker/parts.js';

const perl = (code: string) => execFileSync('perl', ['-e', `${PLATFORM_PL}\n${code}`], { encoding: 'utf8' });

describe("the worker's platform line", () => {
  it("names uname's machine, as POSIX and uname(1) do, without loading POSIX", () => {
    const [os, arch] = perl('print platform_line(), "\\n";').trim().split(' ');
    expect(os).toBe(process.platform);
    expect(arch).toBe(execFileSync('perl', ['-MPOSIX', '-e', 'print((POSIX::uname())[4])'], { encoding: 'utf8' }));
    expect(arch).toBe(execFileSync('uname', ['-m'], { encoding: 'utf8' }).trim());
    expect(perl("platform_line(); print exists $INC{'POSIX.pm'} ? 'loaded' : 'not loaded';")).toBe('not loaded');
  });
});
