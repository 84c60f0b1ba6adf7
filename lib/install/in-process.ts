// Which of a tool's two hooks belongs at user level: the one inside the tool's own process (install.inProcess, a
// mod) where the program here can load it, else its usual one, which every version runs. Install puts in
// that one and takes the other out; `agent status` and `agent test` say which is in place and why.
import { dirname } from 'node:path';
import type { AgentSpec, InstallBase } from '../agents/types.js';
import { versionOf } from './version-of.js';
import { programPath } from './select.js';

export interface InProcessChoice {
  /** The hook inside the tool is the one to use here. */
  use: boolean;
  /** Why, in a sentence a message can end with. */
  why: string;
  /** The program said what it is (not: it is not on PATH, or gave no version). */
  known: boolean;
}

/** `a` is an older version than `b` (dotted numbers). */
export function olderThan(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

/** Whether the program here can load the tool's hook inside it, and why; undefined for a tool that has none. */
export async function inProcessChoice(agent: AgentSpec, base: InstallBase): Promise<InProcessChoice | undefined> {
  const hook = agent.install.inProcess;
  if (!hook) return undefined;
  const path = programPath(agent, base.env);
  if (!path || !agent.program?.binary) {
    return { use: false, known: false, why: `${agent.program?.binary?.name ?? agent.name} is not on PATH, so whether it loads ${hook.name} is not known` };
  }
  const version = /\d+(\.\d+)+/.exec((await versionOf(path, agent.program.binary.versionArgs, base.env)) ?? '')?.[0];
  if (!version) return { use: false, known: false, why: `${path} did not say its version` };
  if (olderThan(version, hook.since))
    return { use: false, known: true, why: `${agent.name} ${version} is older than ${hook.since}, the first that loads ${hook.name}` };
  const blocked = hook.blockedBy?.(base);
  if (blocked) return { use: false, known: true, why: `${agent.name} ${version} would not load ${hook.name}: ${blocked}` };
  return { use: true, known: true, why: `${agent.name} ${version} loads ${hook.name} (${hook.since} and later)` };
}

/** The folder all of these files are in (the in-process hook's own folder). */
export function folderOf(files: readonly string[]): string {
  let dir = dirname(files[0] ?? '/');
  while (!files.every((f) => f.startsWith(`${dir}/`)) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
