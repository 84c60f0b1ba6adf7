// This machine's platform: what Node says (OS, architecture), and the C library of the program running this
// (node's own ELF interpreter, read from its file). `SPAREHAND_PLATFORM_HERE` overrides what sparehand believes
// this machine to be (docs/environment.md): how tests make this Linux machine play a Mac.
import { nativeCodeOfFile } from './of-file.js';
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
    const libc = nativeCodeOfFile(process.execPath)?.libc ?? glibcFromReport();
    if (libc) p.libc = libc;
  }
  detected = p;
  return p;
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
