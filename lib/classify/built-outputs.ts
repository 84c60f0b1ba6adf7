// Parts of a chain that run what the chain's heavy part just built (`go build -o app && ./app`, `cargo build &&
// ./target/debug/x`, `make && ./a.out`). When a worker's platform is not this machine's, what the worker builds
// stays there (docs/run.md "Mac laptop, Linux worker"), so such a chain runs whole on the worker or whole here,
// never split (split.ts). Pure: the platforms come from the caller (the hook, `sparehand classify`).
import { isLiteral } from './lex.js';
import type { Pipeline, SimpleCommand } from './parse.js';
import { commandStart } from './wrappers.js';

/** What the caller knows of the machines: the classifier reads no file. */
export interface Facts {
  /** A configured worker's platform is not this machine's: both, as people read them (`Linux x86-64`, `macOS arm64`). */
  otherPlatform?: { here: string; worker: string } | undefined;
  /** How many folders below the project's root the command starts (a `../x` that climbs no higher stays inside). */
  depth?: number | undefined;
}

// Programs of the project that no build makes: scripts (they run anywhere), the build tools' own wrappers, and
// what an install puts in a dependency folder (installed for each side's platform).
const SCRIPT = /\.(sh|bash|zsh|fish|py|js|mjs|cjs|ts|mts|cts|rb|pl|php|lua|tcl|r|ps1|bat|cmd)$/i;
const WRAPPERS = new Set(['gradlew', 'mvnw', 'configure']);
const INSTALLED = /(^|\/)(node_modules|\.venv|venv|vendor|\.bundle)\//;

/** Whether a program named by a path could be something a build in the project just made. */
export function mayBeBuilt(program: string): boolean {
  if (!program.includes('/') || program.startsWith('/') || program.startsWith('~')) return false;
  const parts = program.split('/');
  const name = parts.at(-1) as string;
  return !parts.includes('..') && name !== '' && !SCRIPT.test(name) && !WRAPPERS.has(name) && !INSTALLED.test(program);
}

/** The program a simple command runs, through wrappers (`timeout 5 ./app`), when a build may have made it. */
function builtProgram(c: SimpleCommand): string | undefined {
  let words = c.words;
  while (words.length > 0 && isLiteral(words[0] as (typeof words)[0])) {
    const argv = words.map((w) => w.value);
    const next = commandStart(argv);
    if (next <= 0) return mayBeBuilt(argv[0] as string) ? argv[0] : undefined;
    words = words.slice(next);
  }
  return undefined;
}

/** The first program of the pipeline that a build may have made (`./app | tee log` → `./app`). */
export function runsBuilt(p: Pipeline): { command: SimpleCommand; program: string } | undefined {
  for (const c of p.commands) {
    if (c.kind !== 'simple') continue;
    const program = builtProgram(c);
    if (program !== undefined) return { command: c, program };
  }
  return undefined;
}
