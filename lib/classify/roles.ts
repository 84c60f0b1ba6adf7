// What each top-level part of a command line (a pipeline between `&&`, `||`, `;`, newlines) is to the split:
// it goes through sparehand, stays here, or goes with a heavy neighbour.
import type { Command, Pipeline, SimpleCommand } from './parse.js';
import type { Verdicts } from './worker-safe.js';

/**
 * - `cd`: changes the folder (`cd`, `pushd`, `popd`): always runs here, so the shell ends where it would have.
 * - `shell`: changes the shell itself (`export`, `set`, `exit`, `X=1`…): on one side of a split, the other
 *   side would not see it.
 * - `heavy`: its first command is heavy (what its pipes feed stays here when it goes alone), or it holds a
 *   heavy command and everything else in it is light.
 * - `light`: quick and harmless: goes with a heavy neighbour, or runs here.
 * - `here`: must run here, or is not known: nothing after it is sent.
 * - `output`: runs what a heavy part before it builds, on a worker of another platform (split.ts, built-outputs.ts):
 *   goes with that heavy part, or the whole command stays here.
 */
export type Role = 'cd' | 'shell' | 'heavy' | 'light' | 'here' | 'output';

const FOLDER = new Set(['cd', 'pushd', 'popd']);
const SHELL_STATE = new Set([
  'export',
  'unset',
  'set',
  'shopt',
  'exit',
  'declare',
  'typeset',
  'readonly',
  'local',
  'ulimit',
  'umask',
  'trap',
  'alias',
  'unalias',
  'shift',
  'return',
  'hash',
  'enable',
]);
// Quick commands that create files: run here before a heavy part, an ignored file they make would not reach the worker.
const CREATES_FILES = new Set(['mkdir', 'touch']);

/** The program a simple command runs, through `builtin` and `command` (`builtin cd x` is a cd). */
function programOf(c: SimpleCommand): string | undefined {
  let i = 0;
  while (c.words[i]?.value === 'builtin' || c.words[i]?.value === 'command') i++;
  return c.words[i]?.value;
}

/** The pipeline's only command when it is a plain simple command (no pipe, no `!`, no `time`). */
const alone = (p: Pipeline): SimpleCommand | undefined => {
  const c = p.commands[0];
  return p.commands.length === 1 && p.commandStart === p.start && c?.kind === 'simple' ? c : undefined;
};

export function roleOf(p: Pipeline, verdicts: Verdicts): Role {
  const c = alone(p);
  if (c) {
    const program = programOf(c);
    if (program !== undefined && FOLDER.has(program)) return 'cd';
    if (c.words.length === 0 && c.assignments.length > 0) return 'shell';
    if (program !== undefined && SHELL_STATE.has(program) && verdicts.get(c)?.kind === 'light') return 'shell';
  }
  // A heavy first command can go on its own with the pipes after it kept here (`npm test | less`).
  const first = roleOfCommand(p.commands[0] as Command, verdicts);
  return first !== 'light' ? first : roleOfAll(p.commands.slice(1), verdicts);
}

function roleOfCommand(c: Command, verdicts: Verdicts): 'heavy' | 'light' | 'here' {
  if (c.kind === 'simple') {
    const kind = verdicts.get(c)?.kind;
    return kind === 'heavy' || kind === 'light' ? kind : 'here';
  }
  return roleOfAll(
    c.body.flatMap((item) => item.pipeline.commands),
    verdicts,
  );
}

// Commands taken together: `here` if any must stay here, else `heavy` if any is heavy, else `light`.
function roleOfAll(commands: readonly Command[], verdicts: Verdicts): 'heavy' | 'light' | 'here' {
  let role: 'heavy' | 'light' = 'light';
  for (const c of commands) {
    const r = roleOfCommand(c, verdicts);
    if (r === 'here') return 'here';
    if (r === 'heavy') role = 'heavy';
  }
  return role;
}

/** A `cd` to a folder the command does not name (`cd`, `cd -`, `cd ~`, `popd`): sparehand would start there. */
export function leavesForUnnamedFolder(p: Pipeline): boolean {
  const c = alone(p);
  if (!c) return false;
  const start = c.words.findIndex((w) => FOLDER.has(w.value));
  const program = c.words[start]?.value;
  const args = c.words.slice(start + 1).filter((w) => w.value === '-' || !w.value.startsWith('-'));
  const first = args[0]?.value;
  return program === 'popd' || first === undefined || first === '-' || first === '~';
}

/** A light part that would create a file in the project (`mkdir`, `touch`, `> file`) if it ran here. */
export function createsFiles(p: Pipeline): string | undefined {
  for (const c of p.commands) {
    if (c.kind !== 'simple') continue;
    const program = programOf(c);
    if (program !== undefined && CREATES_FILES.has(program)) return program;
    const r = c.redirects.find((x) => x.operator.includes('>') && !x.operator.endsWith('&') && !x.target.value.startsWith('/') && !x.target.tilde);
    if (r) return `${r.operator} ${r.target.value}`;
  }
  return undefined;
}
