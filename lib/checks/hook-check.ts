// `agent test`: runs the hook exactly as the tool would (its installed command, a payload in its own form) and
// says what the tool will do with the answer, or why the connection is broken and how to fix it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentEnvVar } from '../agents/index.js';
import type { AgentSpec, InstallBase, Scope } from '../agents/types.js';
import { type Outcome, decodeWire } from './decode-answer.js';
import { which } from '../which.js';
import { inProcessAt, installedCommandsIn, notesAt, targetsAt } from '../install/engine.js';
import { type InProcessChoice, inProcessChoice } from '../install/in-process.js';
import { installedHandlers } from '../install/json-target.js';
import { hasNote } from '../install/note-block.js';
import { type ProcResult, capture } from '../process.js';
import { projectRoot } from '../project-root.js';
import { readIfExists } from '../install/workspace.js';
import { trustState } from './status.js';

export interface Trial {
  command: string;
  outcome: Outcome;
}

/** What the tool will see; each has its own exit status (EXIT_OF). */
export type CheckStatus = 'working' | 'broken' | 'untrusted' | 'not-installed' | 'untestable';

/** The exit status of `agent test` per state: 0 when the tool will send heavy commands on (or has nothing to run). */
export const EXIT_OF: Record<CheckStatus, number> = { working: 0, untestable: 0, broken: 1, untrusted: 3, 'not-installed': 4 };

export interface CheckResult {
  agent: string;
  scope: Scope;
  status: CheckStatus;
  file?: string;
  hook?: string;
  trials: Trial[];
  problem?: string;
  fix?: string;
  /** What is not broken but should not be so: a setting of the user's that makes the tool fail closed. */
  warnings?: string[];
  /** For a tool with a hook inside it (install.inProcess): which of its two hooks answers here, and why. */
  answers?: string;
}

/** Absolute paths a hook command names in quotes (its node and script), to catch a moved installation. */
export const quotedPaths = (command: string): string[] => [...command.matchAll(/"(\/[^"]*)"|'(\/[^']*)'/g)].map((m) => m[1] ?? m[2]!);

/** Runs one installed hook with one shell call and reads its answer. */
async function trial(run: Runner, agent: AgentSpec, command: string, cwd: string): Promise<Outcome> {
  if (run.kind === 'probe') {
    const r = await runFor(process.execPath, ['--input-type=module', '-e', run.source(command)], run.opts, '');
    if (r.code !== 0) return { kind: 'invalid', why: `the plugin probe failed: ${r.stderr.split('\n')[0] ?? ''}` };
    try {
      return JSON.parse(r.stdout) as Outcome;
    } catch {
      return { kind: 'invalid', why: `the plugin probe printed ${r.stdout.slice(0, 120)}` };
    }
  }
  const payload = JSON.stringify(agent.samplePayload!(command, cwd));
  const r = await runFor(run.file, run.args, run.opts, payload);
  if (r.timedOut) return { kind: 'invalid', why: 'no answer within 30 s' };
  return decodeWire({ stdout: r.stdout, stderr: r.stderr, exitCode: r.code }, command);
}

/** Runs a hook (or its probe) as the tool would, for at most 30 s; a program that cannot start is exit 127, as in a shell. */
const runFor = (file: string, args: readonly string[], opts: RunOpts, input: string): Promise<ProcResult> =>
  capture(file, args, { ...opts, input, timeoutMs: 30_000 }).catch((e: Error) => ({ code: 127, stdout: '', stderr: e.message }));

type RunOpts = { env: NodeJS.ProcessEnv; cwd: string };

type Runner = { kind: 'exec'; file: string; args: string[]; opts: RunOpts } | { kind: 'probe'; source: (command: string) => string; opts: RunOpts };

/** Tests a tool's hook at one scope with a heavy and a light command. */
async function checkAgent(
  agent: AgentSpec,
  base: InstallBase,
  scope: Scope,
  opts: { cwd: string; commands: readonly string[] /** The first command is heavy: leaving it alone is a fault. */; heavyFirst?: boolean },
): Promise<CheckResult> {
  const res: CheckResult = { agent: agent.id, scope, status: 'not-installed', trials: [] };
  const reinstall = `sparehand agent install ${agent.id}${scope === 'project' ? ` --project ${base.project ?? '.'}` : ''}`;
  // A fresh cache folder: the hook's "refuse once per session" memory must not turn a second test into a pass.
  const cache = mkdtempSync(join(tmpdir(), 'sparehand-agent-test-'));
  const env: NodeJS.ProcessEnv = { ...base.env, XDG_CACHE_HOME: cache };
  delete env.SPAREHAND_RUN;
  try {
    return await runChecks(agent, base, scope, opts, res, env, reinstall);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

/** The checks themselves, in the environment checkAgent prepared. */
async function runChecks(
  agent: AgentSpec,
  base: InstallBase,
  scope: Scope,
  opts: { cwd: string; commands: readonly string[]; heavyFirst?: boolean },
  res: CheckResult,
  env: NodeJS.ProcessEnv,
  reinstall: string,
): Promise<CheckResult> {
  const runOpts = { env, cwd: opts.cwd };
  let runner: Runner | undefined;
  for (const target of targetsAt(agent, scope)) {
    const path = target.path(base);
    const text = await readIfExists(path);
    res.file ??= path;
    if (text === undefined) continue;
    const hook = installedCommandsIn(target, path, text)[0];
    if (hook === undefined) continue;
    Object.assign(res, { file: path, hook });
    if (target.kind !== 'file') {
      // As the tools run it: bash -c (sh -c where there is no bash).
      const shell = which('bash', env.PATH) ?? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');
      runner = { kind: 'exec', file: shell, args: ['-c', hook], opts: runOpts };
    } else {
      runner = target.probe
        ? { kind: 'probe', source: (c) => target.probe!(path, c, opts.cwd), opts: runOpts }
        : { kind: 'exec', file: path, args: [], opts: runOpts };
    }
    break;
  }
  if (!runner || res.hook === undefined) {
    return { ...res, problem: `no sparehand hook in ${res.file ?? 'any file'}`, fix: reinstall };
  }
  // Said whatever else is found: a broken hook is just when such a setting turns into refused commands.
  const warnings = await failClosedWarnings(agent, base, scope);
  if (warnings.length > 0) res.warnings = warnings;
  const stale = [...new Set(quotedPaths(res.hook))].filter((p) => !existsSync(p));
  if (stale.length > 0) {
    return { ...res, status: 'broken', problem: `the hook names ${stale.join(', ')}, which no longer exists`, fix: reinstall };
  }
  if (runner.kind === 'exec' && !agent.samplePayload) {
    return { ...res, status: 'untestable', problem: 'the registry has no sample payload for this tool' };
  }
  for (const command of opts.commands) res.trials.push({ command, outcome: await trial(runner, agent, command, opts.cwd) });
  const bad = res.trials.find((t) => t.outcome.kind === 'invalid');
  if (bad) {
    return {
      ...res,
      status: 'broken',
      problem: `for \`${bad.command}\` the hook gave no valid answer`,
      fix: `${reinstall}; if it persists, run the hook by hand and look at ${'`sparehand doctor`'}`,
    };
  }
  const first = res.trials[0];
  if (opts.heavyFirst && first?.outcome.kind === 'leave') {
    const off = ['SPAREHAND', agentEnvVar(agent.id)].filter((k) => env[k] === 'off');
    return {
      ...res,
      status: 'broken',
      problem: `the heavy command \`${first.command}\` was left alone${off.length ? ` (${off.join(', ')}=off)` : ''}`,
      fix: off.length
        ? `unset ${off.join(' ')}`
        : agent.sparehandName === 'bare' && !which('sparehand', env.PATH)
          ? "this tool's rewrites call the bare `sparehand`, which is not on PATH: run `npm link` in sparehand's folder, or link bin/sparehand.js into ~/.local/bin"
          : `see why with: sparehand classify -- '${first.command}'`,
    };
  }
  return trusted(agent, base, scope, { ...res, status: 'working' });
}

/**
 * The user's settings on sparehand's handlers that make the tool block a call whenever the hook cannot start, times
 * out or exits oddly (`onFailure: "block"`): sparehand never writes one, and its hook fails open by itself.
 */
async function failClosedWarnings(agent: AgentSpec, base: InstallBase, scope: Scope): Promise<string[]> {
  const out: string[] = [];
  for (const target of targetsAt(agent, scope)) {
    if (target.kind !== 'json' || !target.failClosed) continue;
    const { key, value, source } = target.failClosed;
    const path = target.path(base);
    const text = await readIfExists(path);
    if (text === undefined) continue;
    let handlers: Record<string, unknown>[];
    try {
      handlers = installedHandlers(target, path, text);
    } catch {
      continue; // a file that does not parse holds no handler of ours
    }
    if (handlers.some((h) => h[key] === value)) {
      out.push(
        `${path}: ${key}: ${JSON.stringify(value)} on sparehand's hook makes ${agent.name} block the command whenever the hook cannot start or times out (${source}); sparehand's hook leaves commands alone when it fails, so remove the setting`,
      );
    }
  }
  return out;
}

/** A working hook of a tool that runs only hooks it trusts (by hash): untrusted when the tool would skip it, in silence. */
async function trusted(agent: AgentSpec, base: InstallBase, scope: Scope, res: CheckResult): Promise<CheckResult> {
  const trust = agent.install.trust;
  if (!trust) return res;
  const state = await trustState(agent, base, scope);
  if (state !== 'untrusted' && state !== 'changed') return res;
  const why = state === 'untrusted' ? `${agent.name} does not trust this hook` : `the hook changed since ${agent.name} trusted it`;
  return { ...res, status: 'untrusted', problem: `${why}, so ${agent.name} skips it without a word`, fix: trust.howTo };
}

/**
 * For a tool with a hook inside it: says which of its two hooks answers at user level, and why; a hook inside it that
 * the program here will not load is broken (install puts the other in its place).
 */
function whichAnswers(agent: AgentSpec, base: InstallBase, res: CheckResult, choice: InProcessChoice): CheckResult {
  const hook = agent.install.inProcess!;
  const fix = `sparehand agent install ${agent.id}`;
  if (res.status === 'not-installed')
    return { ...res, answers: `nothing yet; install would put in ${choice.use ? hook.name : 'the settings hook'}: ${choice.why}` };
  const inside = inProcessAt(agent, 'user').some((t) => t.path(base) === res.file);
  if (inside && !choice.use && !choice.known) return { ...res, answers: `${hook.name}, if ${agent.name} loads it: ${choice.why}` };
  if (inside && !choice.use) {
    return {
      ...res,
      status: 'broken',
      answers: 'nothing',
      problem: `${hook.name} is installed, but ${choice.why}`,
      fix: `${fix} (puts the settings hook in its place)`,
    };
  }
  if (inside) return { ...res, answers: `${hook.name}, inside ${agent.name}: ${choice.why}` };
  return {
    ...res,
    answers: choice.use ? `the settings hook; ${choice.why}, which \`${fix}\` puts in its place` : `the settings hook: ${choice.why}`,
  };
}

/**
 * Tests a tool's installed hook at user level and in the project at `cwd`, each file once (run in HOME, the project's
 * files can be the user's own). Empty when it is installed at neither level.
 */
export async function checkInstalled(
  agent: AgentSpec,
  at: { home: string; env: NodeJS.ProcessEnv; cwd: string },
  opts: { commands: readonly string[]; heavyFirst?: boolean },
): Promise<{ installed: CheckResult[]; user: CheckResult }> {
  const trial = { cwd: at.cwd, ...opts };
  const base = { home: at.home, env: at.env };
  const choice = await inProcessChoice(agent, base);
  const checked = await checkAgent(agent, base, 'user', trial);
  const user = choice ? whichAnswers(agent, base, checked, choice) : checked;
  const project =
    targetsAt(agent, 'project').length > 0
      ? await checkAgent(agent, { home: at.home, env: at.env, project: projectRoot(at.cwd) }, 'project', trial)
      : undefined;
  const installed = [user, project?.file === user.file ? undefined : project].filter((r): r is CheckResult => r !== undefined && r.status !== 'not-installed');
  return { installed, user };
}

/**
 * A tool connected by a note only has no hook to run: `agent test` says whether its note is in place (user level, then
 * the project at `cwd`), broken when it is in neither.
 */
export async function checkNote(agent: AgentSpec, at: { home: string; env: NodeJS.ProcessEnv; cwd: string }): Promise<CheckResult> {
  for (const [scope, base] of [
    ['user', { home: at.home, env: at.env }],
    ['project', { home: at.home, env: at.env, project: projectRoot(at.cwd) }],
  ] as const) {
    for (const note of notesAt(agent, scope)) {
      const file = note.path(base);
      if (hasNote(await readIfExists(file))) {
        return {
          agent: agent.id,
          scope,
          status: 'untestable',
          file,
          trials: [],
          problem: 'no hook to run: the tool is connected by this note, which is in place',
        };
      }
    }
  }
  const file = notesAt(agent, 'user')[0]?.path({ home: at.home, env: at.env });
  return {
    agent: agent.id,
    scope: 'user',
    status: 'broken',
    ...(file ? { file } : {}),
    trials: [],
    problem: 'the note that connects this tool is not there',
    fix: `sparehand agent install ${agent.id}`,
  };
}
