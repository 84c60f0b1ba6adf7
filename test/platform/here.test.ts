// This machine's platform: detected from its own files (node's ELF interpreter) and checked against what the
// system's own tools say; and the documented override that lets a test make this Linux machine play a Mac.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PLATFORM_VAR, detectedPlatform, platformHere } from '../../lib/platform/here.js';
import { differenceLabels, parsePlatform, platformLabel, samePlatform } from '../../lib/platform/platform.js';

describe('this machine', () => {
  it('is what uname and the C library say it is', () => {
    const machine = execFileSync('uname', ['-m'], { encoding: 'utf8' }).trim();
    // glibc answers `getconf GNU_LIBC_VERSION`; musl has no such variable.
    const glibc = (() => {
      try {
        return /^glibc /.test(execFileSync('getconf', ['GNU_LIBC_VERSION'], { encoding: 'utf8', stdio: 'pipe' }));
      } catch {
        return false;
      }
    })();
    expect(detectedPlatform()).toEqual({ os: 'linux', arch: machine === 'aarch64' ? 'arm64' : machine, libc: glibc ? 'glibc' : 'musl' });
    expect(platformHere({})).toEqual({ platform: detectedPlatform(), from: 'detected' });
  });

  it(`${PLATFORM_VAR} overrides it, in any usual spelling; a value that names no platform is said and ignored`, () => {
    expect(platformHere({ [PLATFORM_VAR]: 'darwin-arm64' })).toEqual({ platform: { os: 'darwin', arch: 'arm64' }, from: PLATFORM_VAR });
    expect(platformHere({ [PLATFORM_VAR]: 'macos-x86_64' }).platform).toEqual({ os: 'darwin', arch: 'x86_64' });
    expect(platformHere({ [PLATFORM_VAR]: 'linux-aarch64-musl' }).platform).toEqual({ os: 'linux', arch: 'arm64', libc: 'musl' });
    const bad = platformHere({ [PLATFORM_VAR]: 'plan9' });
    expect(bad.platform).toEqual(detectedPlatform());
    expect(bad.problem).toMatch(/^SPAREHAND_PLATFORM_HERE=plan9 names no platform/);
  });
});

describe('platforms', () => {
  it('read as the worker program writes them, compared, and named as people read them', () => {
    const linux = parsePlatform('linux x86_64 glibc')!;
    const mac = parsePlatform('darwin arm64')!;
    expect(samePlatform(linux, parsePlatform('linux amd64')!)).toBe(true);
    expect(samePlatform(linux, parsePlatform('linux x86_64 musl')!)).toBe(false);
    expect(samePlatform(linux, mac)).toBe(false);
    expect(platformLabel(linux)).toBe('Linux x86-64');
    expect(differenceLabels(mac, linux)).toEqual({ here: 'macOS arm64', there: 'Linux x86-64' });
    expect(differenceLabels(linux, parsePlatform('linux x86_64 musl')!)).toEqual({ here: 'Linux x86-64 (glibc)', there: 'Linux x86-64 (musl)' });
    expect(parsePlatform('linux')).toBeUndefined();
    expect(parsePlatform('linux x86_64 bionic')).toBeUndefined();
  });
});

describe("the C library of a program, from its file's first page", () => {
  it('is what reading its ELF program headers says, for node, ls and a gcc program linked for musl', async () => {
    const { execFileSync: run } = await import('node:child_process');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tempDir } = await import('../helpers/context.js');
    const { nativeCodeOfFile } = await import('../../lib/platform/of-file.js');
    const { interpreterLibc } = await import('../../lib/platform/here.js');
    const dir = tempDir('sparehand-libc-');
    writeFileSync(join(dir, 'a.c'), 'int main(void){return 0;}\n');
    run('gcc', ['-Wl,--dynamic-linker=/lib/ld-musl-x86_64.so.1', 'a.c', '-o', 'for-musl'], { cwd: dir });
    for (const file of [process.execPath, '/bin/ls', join(dir, 'for-musl')]) expect(interpreterLibc(file), file).toBe(nativeCodeOfFile(file)?.libc);
    expect(interpreterLibc(join(dir, 'for-musl'))).toBe('musl');
    expect(interpreterLibc(join(dir, 'a.c'))).toBeUndefined();
  });
});
