// Native code found by its bytes: real files of this machine (node itself, libc, gcc's own output of every kind)
// and of other platforms (vendored from npm: test/fixtures/native/PROVENANCE.md); and which of them the sync back
// keeps on a worker, for each pair of platforms.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type NativeCode, describeCode, keptOnWorker } from '../../lib/platform/native-code.js';
import { nativeCodeOfFile } from '../../lib/platform/of-file.js';
import { parsePlatform } from '../../lib/platform/platform.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';

const NATIVE = join(FIXTURES, 'native');
const arch = (() => {
  const m = execFileSync('uname', ['-m'], { encoding: 'utf8' }).trim();
  return m === 'aarch64' ? 'arm64' : m;
})();

let made: Record<string, string> | undefined;
/** gcc's output of each kind, from one small C file, in a fresh folder (made once). */
function built(): Record<string, string> {
  if (made) return made;
  const dir = tempDir('sparehand-native-');
  writeFileSync(join(dir, 'a.c'), '#include <stdio.h>\nint f(void){return 1;}\nint main(void){puts("hi");return f()-1;}\n');
  const cc = (...args: string[]) => execFileSync('gcc', args, { cwd: dir, stdio: 'pipe' });
  cc('-c', 'a.c', '-o', 'a.o');
  cc('a.c', '-o', 'app');
  cc('-static', 'a.c', '-o', 'static');
  cc('-static-pie', 'a.c', '-o', 'static-pie');
  cc('-shared', '-fPIC', 'a.c', '-o', 'liba.so');
  cc('-Wl,--dynamic-linker=/lib/ld-musl-x86_64.so.1', 'a.c', '-o', 'for-musl');
  execFileSync('ar', ['rcs', 'liba.a', 'a.o'], { cwd: dir });
  writeFileSync(join(dir, 'debian-binary'), '2.0\n');
  execFileSync('ar', ['rc', 'pkg.deb', 'debian-binary'], { cwd: dir });
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  writeFileSync(join(dir, 'bundle.js'), 'console.log(1)\n');
  // A Java class file starts with the bytes of a universal Mach-O file: CAFEBABE, then its version (here 52).
  writeFileSync(join(dir, 'A.class'), Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, ...Array(64).fill(0)]));
  writeFileSync(join(dir, 'm.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const names = ['a.o', 'app', 'static', 'static-pie', 'liba.so', 'for-musl', 'liba.a', 'pkg.deb', 'run.sh', 'bundle.js', 'A.class', 'm.wasm'];
  made = Object.fromEntries(names.map((n) => [n, join(dir, n)]));
  return made;
}

describe('native code by its bytes', () => {
  it("this machine's own files: node, ls, and gcc's object file, executables (dynamic, static, static PIE, for musl), shared and static library", () => {
    const f = built();
    const of = (p: string) => nativeCodeOfFile(p);
    const linux = { format: 'ELF', os: 'linux', arches: [arch] };
    expect(of(process.execPath)).toEqual({ ...linux, kind: 'executable', libc: 'glibc' });
    expect(of('/bin/ls')).toEqual({ ...linux, kind: 'executable', libc: 'glibc' });
    expect(of(f['a.o'] as string)).toEqual({ ...linux, kind: 'object' });
    expect(of(f.app as string)).toEqual({ ...linux, kind: 'executable', libc: 'glibc' });
    expect(of(f.static as string)).toEqual({ ...linux, kind: 'executable', static: true });
    expect(of(f['static-pie'] as string)).toEqual({ ...linux, kind: 'executable', static: true });
    expect(of(f['liba.so'] as string)).toEqual({ ...linux, kind: 'library' });
    expect(of(f['for-musl'] as string)).toEqual({ ...linux, kind: 'executable', libc: 'musl' });
    expect(of(f['liba.a'] as string)).toEqual({ ...linux, kind: 'archive' });
  });

  it("other platforms' files, as npm ships them: a Mach-O executable, a universal Mach-O addon, a Windows program", () => {
    expect(nativeCodeOfFile(join(NATIVE, 'esbuild-darwin-arm64.head'))).toEqual({ format: 'Mach-O', kind: 'executable', os: 'darwin', arches: ['arm64'] });
    expect(nativeCodeOfFile(join(NATIVE, 'fsevents-2.3.3.node'))).toEqual({ format: 'Mach-O', kind: 'library', os: 'darwin', arches: ['x86_64', 'arm64'] });
    expect(nativeCodeOfFile(join(NATIVE, 'esbuild-win32-x64.exe.head'))).toEqual({ format: 'PE', kind: 'executable', os: 'windows', arches: ['x86_64'] });
  });

  it('what is not native code: scripts, JavaScript, a Java class, WebAssembly, a .deb (an ar archive of no objects), nothing at all', () => {
    const f = built();
    for (const n of ['pkg.deb', 'run.sh', 'bundle.js', 'A.class', 'm.wasm']) expect(nativeCodeOfFile(f[n] as string), n).toBeUndefined();
    expect(nativeCodeOfFile(join(tempDir('sparehand-none-'), 'missing'))).toBeUndefined();
  });

  it('says what a file is as people read it', () => {
    expect(describeCode(nativeCodeOfFile(join(NATIVE, 'fsevents-2.3.3.node')) as NativeCode)).toBe('Mach-O shared library for macOS x86-64 + arm64');
    expect(describeCode(nativeCodeOfFile(process.execPath) as NativeCode)).toMatch(/^ELF executable for Linux (x86-64|arm64) \(glibc\)$/);
  });
});

describe('what stays on the worker', () => {
  const p = (s: string) => parsePlatform(s)!;
  const elf = (extra: Partial<NativeCode> = {}): NativeCode => ({
    format: 'ELF',
    kind: 'executable',
    os: 'linux',
    arches: ['x86_64'],
    libc: 'glibc',
    ...extra,
  });
  const mac = (arches: string[]): NativeCode => ({ format: 'Mach-O', kind: 'executable', os: 'darwin', arches });

  it('a Linux worker, a Mac here: its ELF files stay there; a Mac build it made (cross-compiled), or a Windows one, comes back', () => {
    const [here, there] = [p('darwin arm64'), p('linux x86_64 glibc')];
    expect(keptOnWorker(elf(), here, there)).toBe(true);
    expect(keptOnWorker(elf({ kind: 'object', libc: undefined }), here, there)).toBe(true);
    expect(keptOnWorker(elf({ arches: ['x86'] }), here, there)).toBe(true);
    expect(keptOnWorker(mac(['arm64']), here, there)).toBe(false);
    expect(keptOnWorker({ format: 'PE', kind: 'executable', os: 'windows', arches: ['x86_64'] }, here, there)).toBe(false);
    // Firmware for another architecture, cross-compiled on the worker: runs on neither, comes back as any file.
    expect(keptOnWorker(elf({ arches: ['arm'] }), here, there)).toBe(false);
  });

  it('a Mac worker of the other architecture: its thin files stay there, a universal file with this one comes back', () => {
    const [here, there] = [p('darwin arm64'), p('darwin x86_64')];
    expect(keptOnWorker(mac(['x86_64']), here, there)).toBe(true);
    expect(keptOnWorker(mac(['x86_64', 'arm64']), here, there)).toBe(false);
  });

  it('only the C library differs: static programs and those for this machine come back; dynamic ones, libraries and objects stay', () => {
    const [here, there] = [p('linux x86_64 glibc'), p('linux x86_64 musl')];
    expect(keptOnWorker(elf({ libc: 'musl' }), here, there)).toBe(true);
    expect(keptOnWorker(elf({ libc: undefined, static: true }), here, there)).toBe(false);
    expect(keptOnWorker(elf({ kind: 'library', libc: undefined }), here, there)).toBe(true);
    expect(keptOnWorker(elf({ libc: 'glibc' }), here, there)).toBe(false);
  });
});
