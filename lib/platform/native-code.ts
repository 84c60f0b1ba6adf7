// Whether a file is native code — an executable, a shared library, an object file, a static library or a core
// dump — and for which platform, from its bytes alone (its name may say anything): ELF (Linux and the BSDs),
// Mach-O (macOS, universal files too) and PE (Windows). The sync back keeps on the worker what is native code for
// the worker's platform and does not run here (docs/run.md "Mac laptop, Linux worker"). Pure over a reader of the
// file's bytes, so that it reads only the few headers it needs of a file of any size.
//
// Formats, as their own specifications lay them out: the System V ABI's ELF header, program headers and dynamic
// section (e_type, e_machine, PT_INTERP, DT_FLAGS_1's DF_1_PIE); Apple's <mach-o/loader.h> and <mach-o/fat.h>;
// Microsoft's PE format (the DOS header's e_lfanew, the COFF header, the CLR runtime header that marks .NET
// assemblies, which are portable); the ar format of static libraries (GNU and BSD member names).
import { type Platform, platformLabel } from './platform.js';

export interface NativeCode {
  format: 'ELF' | 'Mach-O' | 'PE';
  kind: 'executable' | 'library' | 'object' | 'archive' | 'core';
  /** `linux` for an ELF file not marked as another OS's, `darwin` for Mach-O, `windows` for PE. */
  os: string;
  /** One architecture, or several for a universal Mach-O file. */
  arches: string[];
  /** An ELF program's C library, from its program interpreter (`/lib/ld-musl-…` is musl's, `ld-linux…` glibc's). */
  libc?: 'glibc' | 'musl' | undefined;
  /** An ELF program with no program interpreter: linked statically, it starts on any C library. */
  static?: boolean;
}

/** Up to `length` bytes of the file from `offset` (fewer at its end). */
export type ReadAt = (offset: number, length: number) => Buffer;

/** What to read first: every format's header, and what the ELF program headers of a small program need. */
export const HEAD_BYTES = 4096;

export function nativeCode(read: ReadAt): NativeCode | undefined {
  try {
    return detect(read, 0);
  } catch {
    // A header that points past the end of the file, or sizes that make no sense: not a file anything runs.
    return undefined;
  }
}

function detect(read: ReadAt, at: number, inArchive = false): NativeCode | undefined {
  const head = read(at, HEAD_BYTES);
  if (head.length < 8) return undefined;
  const magic = head.readUInt32BE(0);
  if (magic === 0x7f454c46) return elf(read, at, head);
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) return machO(head, 0);
  if (magic === 0xcafebabe || magic === 0xcafebabf) return fat(read, at, head, magic === 0xcafebabf);
  if (!inArchive && head.readUInt16BE(0) === 0x4d5a) return pe(head);
  if (!inArchive && head.subarray(0, 8).toString('latin1') === '!<arch>\n') return archive(read, at);
  return undefined;
}

// ---- ELF

const ELF_MACHINE: Readonly<Record<number, string>> = {
  3: 'x86',
  62: 'x86_64',
  40: 'arm',
  183: 'arm64',
  8: 'mips',
  20: 'ppc',
  21: 'ppc64',
  22: 's390x',
  258: 'loongarch64',
};
const ELF_OSABI: Readonly<Record<number, string>> = { 2: 'netbsd', 9: 'freebsd', 12: 'openbsd' };
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_FLAGS_1 = 0x6ffffffb;
const DF_1_PIE = 0x08000000;

function elf(read: ReadAt, at: number, h: Buffer): NativeCode | undefined {
  const wide = h[4] === 2;
  const big = h[5] === 2;
  if ((h[4] !== 1 && !wide) || (h[5] !== 1 && !big) || h.length < (wide ? 64 : 52)) return undefined;
  const u16 = (b: Buffer, o: number) => (big ? b.readUInt16BE(o) : b.readUInt16LE(o));
  const u32 = (b: Buffer, o: number) => (big ? b.readUInt32BE(o) : b.readUInt32LE(o));
  const word = (b: Buffer, o: number) => (wide ? Number(big ? b.readBigUInt64BE(o) : b.readBigUInt64LE(o)) : u32(b, o));
  const type = u16(h, 16);
  const machine = u16(h, 18);
  let arch = ELF_MACHINE[machine] ?? `elf-machine-${machine}`;
  if (machine === 243) arch = wide ? 'riscv64' : 'riscv32';
  if (machine === 21 && !big) arch = 'ppc64le';
  const os = ELF_OSABI[h[7] as number] ?? 'linux';
  const base = { format: 'ELF' as const, os, arches: [arch] };
  if (type === 1) return { ...base, kind: 'object' };
  if (type === 4) return { ...base, kind: 'core' };
  if (type !== 2 && type !== 3) return undefined;
  // The program headers: the interpreter that starts a program, and the dynamic section that marks a static PIE.
  const phoff = word(h, wide ? 32 : 28);
  const phentsize = u16(h, wide ? 54 : 42);
  const phnum = Math.min(u16(h, wide ? 56 : 44), 512);
  const table = phoff > 0 && phentsize >= (wide ? 56 : 32) ? read(at + phoff, phentsize * phnum) : Buffer.alloc(0);
  let interp: string | undefined;
  let pie = false;
  for (let i = 0; (i + 1) * phentsize <= table.length; i++) {
    const ph = table.subarray(i * phentsize, (i + 1) * phentsize);
    const pType = u32(ph, 0);
    const offset = word(ph, wide ? 8 : 4);
    const size = Math.min(word(ph, wide ? 32 : 16), 65536);
    if (pType === PT_INTERP)
      interp = read(at + offset, Math.min(size, 4096))
        .toString('latin1')
        .replace(/\0.*$/s, '');
    if (pType === PT_DYNAMIC) {
      const dyn = read(at + offset, size);
      const entry = wide ? 16 : 8;
      for (let o = 0; o + entry <= dyn.length; o += entry) {
        const tag = word(dyn, o);
        if (tag === 0) break;
        if (tag === DT_FLAGS_1 && (word(dyn, o + entry / 2) & DF_1_PIE) !== 0) pie = true;
      }
    }
  }
  const libc = interp === undefined ? undefined : /ld-musl/.test(interp) ? 'musl' : /ld-linux|ld64\.so|ld\.so\.1/.test(interp) ? 'glibc' : undefined;
  const program = type === 2 || interp !== undefined || pie;
  return {
    ...base,
    os: interp !== undefined && /ld-elf\.so/.test(interp) ? 'freebsd' : os,
    kind: program ? 'executable' : 'library',
    ...(libc ? { libc } : {}),
    ...(program && interp === undefined ? { static: true } : {}),
  };
}

// ---- Mach-O

const CPU: Readonly<Record<number, string>> = {
  7: 'x86',
  0x01000007: 'x86_64',
  12: 'arm',
  0x0100000c: 'arm64',
  0x0200000c: 'arm64_32',
  18: 'ppc',
  0x01000012: 'ppc64',
};
const MACH_KIND: Readonly<Record<number, NativeCode['kind']>> = {
  1: 'object',
  2: 'executable',
  4: 'core',
  6: 'library',
  7: 'library',
  8: 'library',
  9: 'library',
};
const cpuName = (t: number): string => CPU[t] ?? `cpu-${t}`;

function machO(h: Buffer, at: number): NativeCode | undefined {
  if (h.length < at + 28) return undefined;
  const little = h.readUInt32BE(at) === 0xcefaedfe || h.readUInt32BE(at) === 0xcffaedfe;
  const u32 = (o: number) => (little ? h.readUInt32LE(at + o) : h.readUInt32BE(at + o));
  const kind = MACH_KIND[u32(12)];
  return kind ? { format: 'Mach-O', kind, os: 'darwin', arches: [cpuName(u32(4))] } : undefined;
}

// A universal file: several Mach-O files, one per architecture. (Java class files start with the same four bytes;
// their version, where a universal file has its count of architectures, is 45 or more.)
function fat(read: ReadAt, at: number, h: Buffer, wide: boolean): NativeCode | undefined {
  const count = h.readUInt32BE(4);
  const size = wide ? 32 : 20;
  if (count === 0 || count > 30 || h.length < 8 + count * size) return undefined;
  const arches = Array.from({ length: count }, (_, i) => cpuName(h.readUInt32BE(8 + i * size)));
  const first = wide ? Number(h.readBigUInt64BE(16)) : h.readUInt32BE(16);
  const slice = machO(read(at + first, 32), 0);
  return slice ? { ...slice, arches } : undefined;
}

// ---- PE

const PE_MACHINE: Readonly<Record<number, string>> = { 0x14c: 'x86', 0x8664: 'x86_64', 0xaa64: 'arm64', 0x1c0: 'arm', 0x1c4: 'arm' };

function pe(h: Buffer): NativeCode | undefined {
  if (h.length < 0x40) return undefined;
  const pos = h.readUInt32LE(0x3c);
  if (pos + 24 > h.length || h.readUInt32BE(pos) !== 0x50450000) return undefined;
  const machine = h.readUInt16LE(pos + 4);
  const characteristics = h.readUInt16LE(pos + 22);
  const optional = pos + 24;
  const magic = optional + 2 <= h.length ? h.readUInt16LE(optional) : 0;
  // A .NET assembly (a CLR runtime header in data directory 14) is bytecode, which runs wherever .NET does.
  const clr = optional + (magic === 0x20b ? 112 : 96) + 14 * 8;
  if ((magic === 0x10b || magic === 0x20b) && clr + 8 <= h.length && h.readUInt32LE(clr) !== 0) return undefined;
  return { format: 'PE', kind: characteristics & 0x2000 ? 'library' : 'executable', os: 'windows', arches: [PE_MACHINE[machine] ?? `pe-machine-${machine}`] };
}

// ---- static libraries (ar): what their first object file is (a .deb is an ar archive too, of no objects).

function archive(read: ReadAt, at: number): NativeCode | undefined {
  let offset = 8;
  for (let i = 0; i < 64; i++) {
    const header = read(at + offset, 60);
    if (header.length < 60 || header.subarray(58, 60).toString('latin1') !== '`\n') return undefined;
    const name = header.subarray(0, 16).toString('latin1').trimEnd();
    const size = Number(header.subarray(48, 58).toString('latin1').trim());
    if (!Number.isSafeInteger(size) || size < 0) return undefined;
    const longName = /^#1\/(\d+)$/.exec(name);
    const nameLength = longName ? Number(longName[1]) : 0;
    const realName = longName
      ? read(at + offset + 60, nameLength)
          .toString('latin1')
          .replace(/\0+$/, '')
      : name;
    const index = realName === '/' || realName === '//' || realName === '/SYM64/' || realName.startsWith('__.SYMDEF');
    const member = index ? undefined : detect(read, at + offset + 60 + nameLength, true);
    if (member?.kind === 'object') return { ...member, kind: 'archive' };
    offset += 60 + size + (size % 2);
  }
  return undefined;
}

// ---- what runs where

const runsArch = (code: string, on: string): boolean => code === on || (code === 'x86' && on === 'x86_64');

/** Whether the code is for this platform's OS and one of the architectures it runs (x86 on x86-64 too). */
export function isFor(code: NativeCode, p: Platform): boolean {
  return code.os === p.os && code.arches.some((a) => runsArch(a, p.arch));
}

/**
 * Native code that the worker made for itself and that does not run here: what the sync back keeps on the worker.
 * A universal file with this machine's architecture runs here; code of a third platform (a cross-compiled Windows
 * program, a Mac build made on Linux) comes back as any other file does. Where only the C library differs, a
 * statically linked program (or one for this machine's C library) runs here; libraries and object files are the
 * worker's.
 */
export function keptOnWorker(code: NativeCode, here: Platform, worker: Platform): boolean {
  if (!isFor(code, worker)) return false;
  if (!isFor(code, here)) return true;
  if (here.libc === undefined || worker.libc === undefined || here.libc === worker.libc || code.format !== 'ELF') return false;
  return !(code.static || code.libc === here.libc);
}

const KIND_NAME: Readonly<Record<NativeCode['kind'], string>> = {
  executable: 'executable',
  library: 'shared library',
  object: 'object file',
  archive: 'static library',
  core: 'core dump',
};

/** As people read it: `ELF executable for Linux x86-64 (glibc)`, `Mach-O shared library for macOS arm64 + x86-64`. */
export function describeCode(code: NativeCode): string {
  const arches = code.arches.map((arch, i) =>
    i === 0 ? platformLabel({ os: code.os, arch }) : platformLabel({ os: code.os, arch }).split(' ').slice(1).join(' '),
  );
  return `${code.format} ${KIND_NAME[code.kind]} for ${arches.join(' + ')}${code.libc ? ` (${code.libc})` : code.static ? ' (static)' : ''}`;
}
