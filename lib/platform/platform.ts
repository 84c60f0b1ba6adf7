// What a machine is, for the question "does what the worker built run here?": its OS, its architecture and, on
// Linux, its C library (a program linked against glibc does not start on musl, and the other way round). Pure:
// this machine's is found in here.ts, a worker's by the run's program and `worker check` (worker/platform.pl).

export interface Platform {
  /** `linux`, `darwin`, `freebsd`, `windows`, … (lower case, as Perl's `$^O` and Node's `process.platform` say it). */
  os: string;
  /** `x86_64`, `arm64`, `x86`, `arm`, `riscv64`, … (uname's and Node's names folded into one). */
  arch: string;
  /** `glibc` or `musl` on Linux, when known. */
  libc?: string | undefined;
}

const OS: Readonly<Record<string, string>> = {
  linux: 'linux',
  darwin: 'darwin',
  macos: 'darwin',
  mac: 'darwin',
  osx: 'darwin',
  freebsd: 'freebsd',
  openbsd: 'openbsd',
  netbsd: 'netbsd',
  win32: 'windows',
  windows: 'windows',
  mswin32: 'windows',
  cygwin: 'windows',
  msys: 'windows',
};
const ARCH: Readonly<Record<string, string>> = {
  x86_64: 'x86_64',
  'x86-64': 'x86_64',
  amd64: 'x86_64',
  x64: 'x86_64',
  aarch64: 'arm64',
  arm64: 'arm64',
  i386: 'x86',
  i486: 'x86',
  i586: 'x86',
  i686: 'x86',
  ia32: 'x86',
  x86: 'x86',
  arm: 'arm',
  armv6l: 'arm',
  armv7l: 'arm',
  armhf: 'arm',
  riscv64: 'riscv64',
  ppc64le: 'ppc64le',
  ppc64: 'ppc64',
  s390x: 's390x',
  loongarch64: 'loongarch64',
};
const LIBC = new Set(['glibc', 'musl']);

/** One platform from its words in any of the usual spellings (`darwin arm64`, `macos-arm64`, `linux x64 musl`); undefined when it is not one. */
export function parsePlatform(text: string): Platform | undefined {
  const words = text
    .trim()
    .toLowerCase()
    .split(/[\s/]+|-(?=[a-z])/)
    .filter(Boolean);
  const [os, arch, libc, ...rest] = words;
  const o = os === undefined ? undefined : OS[os];
  const a = arch === undefined ? undefined : (ARCH[arch] ?? (/^[a-z][a-z0-9_]*$/.test(arch) ? arch : undefined));
  if (!o || !a || rest.length > 0 || (libc !== undefined && !LIBC.has(libc))) return undefined;
  return { os: o, arch: a, ...(libc ? { libc } : {}) };
}

/** As the worker program and the cache write it: `linux x86_64 glibc`. */
export const platformWords = (p: Platform): string => [p.os, p.arch, ...(p.libc ? [p.libc] : [])].join(' ');

const OS_NAME: Readonly<Record<string, string>> = {
  linux: 'Linux',
  darwin: 'macOS',
  freebsd: 'FreeBSD',
  openbsd: 'OpenBSD',
  netbsd: 'NetBSD',
  windows: 'Windows',
};
const ARCH_NAME: Readonly<Record<string, string>> = { x86_64: 'x86-64', x86: 'x86 (32-bit)' };

/** As people read it: `macOS arm64`, `Linux x86-64`; with `libc`, `Linux x86-64 (musl)`. */
export function platformLabel(p: Platform, opts: { libc?: boolean } = {}): string {
  const base = `${OS_NAME[p.os] ?? p.os} ${ARCH_NAME[p.arch] ?? p.arch}`;
  return opts.libc && p.libc ? `${base} (${p.libc})` : base;
}

/** Whether what is built on one runs on the other as it is: same OS, same architecture, same C library where both are known. */
export function samePlatform(a: Platform, b: Platform): boolean {
  return a.os === b.os && a.arch === b.arch && (a.libc === undefined || b.libc === undefined || a.libc === b.libc);
}

/** Where two platforms differ, as a label pair that names the C library only when that is the difference. */
export function differenceLabels(here: Platform, there: Platform): { here: string; there: string } {
  const libc = here.os === there.os && here.arch === there.arch;
  return { here: platformLabel(here, { libc }), there: platformLabel(there, { libc }) };
}
