// This machine's platform: what Node says (OS, architecture), and the C library of the program running this
// (node's own ELF interpreter, named in its file's first page). `SPAREHAND_PLATFORM_HERE` overrides what sparehand
// believes this machine to be (docs/environment.md): how tests make this Linux machine play a Mac. On the hook's
// path: node:fs only (native-code.ts, which reads any file's headers, is not needed for node's own).
import { closeSync, openSync, readSync } from 'node:fs';
import { type Platform, parsePlatform } from './platform.js';

export const PLATFORM_VAR = 'SPAREHAND_PLATFORM_HERE';

export interface PlatformHere {
  platform: Platform;
  /** Found on this machine, or taken from the environment variable. */
  from: 'detected' | typeof PLATFORM_VAR;
  /** The variable is set but names no platform (then the detected one is used). */
  problem?: string;
}

let detected: Platform | undefined;

/** This machine as it is (once per process): Node's OS and architecture, and on Linux the C library node is linked with. */
export function detectedPlatform(): Platform {
  if (detected) return detected;
  const p = parsePlatform(`${process.platform} ${process.arch}`) ?? { os: process.platform, arch: process.arch };
  if (p.os === 'linux') {
    const libc = interpreterLibc(process.execPath) ?? glibcFromReport();
    if (libc) p.libc = libc;
  }
  detected = p;
  return p;
}

/**
 * The C library a Linux program's interpreter belongs to, from the path the linker put right after its program
 * headers (`/lib64/ld-linux-x86-64.so.2`, `/lib/ld-musl-aarch64.so.1`): within its first 4 KB.
 */
export function interpreterLibc(file: string): 'glibc' | 'musl' | undefined {
  const head = Buffer.alloc(4096);
  let n = 0;
  try {
    const fd = openSync(file, 'r');
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const text = head.subarray(0, n).toString('latin1');
  if (!text.startsWith('\x7fELF')) return undefined;
  return /\/ld-musl-[\w-]+\.so/.test(text) ? 'musl' : /\/ld-linux[\w.-]*\.so|\/ld64\.so\.\d/.test(text) ? 'glibc' : undefined;
}

// A node with no program interpreter (linked statically): Node's own report says whether glibc is what runs it.
function glibcFromReport(): 'glibc' | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ? 'glibc' : undefined;
}

/** What sparehand believes this machine to be: SPAREHAND_PLATFORM_HERE when it names a platform, else the detected one. */
export function platformHere(env: NodeJS.ProcessEnv): PlatformHere {
  const set = env[PLATFORM_VAR];
  if (set === undefined || set.trim() === '') return { platform: detectedPlatform(), from: 'detected' };
  const p = parsePlatform(set);
  if (p) return { platform: p, from: PLATFORM_VAR };
  return {
    platform: detectedPlatform(),
    from: 'detected',
    problem: `${PLATFORM_VAR}=${JSON.stringify(set).slice(1, -1)} names no platform (write it as OS-ARCH[-LIBC]: darwin-arm64, linux-x86_64-glibc); the detected one is used`,
  };
}
