// One scenario = sandbox + the tool's own config + `sparehand agent install` + one non-interactive run, and the
// checks every tool shares: what the fake model received proves how the real program ran the command.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { disposeSandbox, explain, makeSandbox, type RunResult, runTool, type Sandbox, startsHook, startsSparehand, toolInstall } from './harness.js';
import type { FakeModelOptions } from '../fake-model/server.js';
import { agentCommand, type InstallResult, installSparehand } from './install.js';
import type { ToolDriver } from './tools.js';

export interface ScenarioOptions {
  /** Extra arguments to `sparehand agent install`. */
  installArgs?: string[];
  /** Run `sparehand agent uninstall <tool>` after the install. */
  uninstall?: boolean;
  /** false: the run's PATH has no `sparehand` (the sandbox's bin/ is left out). */
  sparehandOnPath?: boolean;
  /** Extra environment for the run (e.g. SPAREHAND_AGENT_CODEX=rewrite). */
  env?: Record<string, string>;
  /** Extra arguments for the CLI, replacing the driver's own. */
  command?: (box: Sandbox, toolBin: string, installOutput: string) => [string, string[]];
  /** Changes before install (e.g. a worker in sparehand's config, the tool's sandbox switched on). */
  beforeInstall?: (box: Sandbox) => void;
  /** Changes to the tool's configuration after install (e.g. a deny rule). */
  afterInstall?: (box: Sandbox) => void;
  timeoutMs?: number;
  /** How the fake model plays (default: asks for npm test, follows a refusal's replacement). */
  model?: FakeModelOptions;
  /** The folder the throwaway HOME and project are made in (default: the system temp folder). */
  under?: string;
  /** Processes besides the tool's own known to stay (sparehand's shared ssh connection to a worker): ended by pid. */
  knownDaemons?: RegExp[];
  /** Count the programs the CLI (and all it starts) runs, with strace (RunResult.execs). */
  trace?: boolean;
  /** Runs `sparehand agent install`/`uninstall` and the CLI inside this (a mount namespace with managed settings). */
  enclose?: (file: string, args: string[]) => [string, string[]];
}

export interface Scenario {
  box: Sandbox;
  install: InstallResult;
  run: RunResult;
  /** The failure message: everything the fake model received and the CLI printed. */
  why: string;
}

type Skip = (note: string) => never;

/** Runs one scenario, or skips the test (with the reason) when the tool is not installed on this machine. */
export async function runScenario(driver: ToolDriver, skip: Skip, opts: ScenarioOptions = {}): Promise<Scenario> {
  const installed = toolInstall(driver.cache ?? driver.id);
  if (!installed.ok) {
    console.warn(`SKIPPED ${driver.id}: ${installed.reason}`);
    return skip(installed.reason);
  }
  const toolBin = installed.bin;
  const box = await makeSandbox(opts.model, opts.under);
  try {
    await driver.configure(box, toolBin);
    const env = { ...driver.env(box, toolBin), ...opts.env };
    if (opts.sparehandOnPath === false) {
      env.PATH = env
        .PATH!.split(':')
        .filter((d) => d !== box.binDir)
        .join(':');
      // Another installation on the machine's PATH (a global npm install) would be found: nothing to test here.
      const other = env.PATH.split(':')
        .map((d) => join(d, 'sparehand'))
        .find((f) => existsSync(f));
      if (other) return skip(`this machine has another sparehand on PATH (${other})`);
    }
    opts.beforeInstall?.(box);
    let install = await installSparehand(box, driver.id, env, opts.installArgs, opts.enclose);
    expect(install.exitCode ?? 0, `${install.how} failed:\n${install.output}`).toBe(0);
    if (opts.uninstall) {
      const undo = await agentCommand(box, env, ['uninstall', driver.id], opts.enclose);
      expect(undo.exitCode, `${undo.how} failed:\n${undo.output}`).toBe(0);
      install = { how: `${install.how}, then ${undo.how}`, output: `${install.output}${undo.output}` };
    }
    opts.afterInstall?.(box);
    const [given, givenArgs] = (opts.command ?? driver.command)(box, toolBin, install.output);
    const [file, args] = opts.enclose ? opts.enclose(given, givenArgs) : [given, givenArgs];
    const knownDaemons = [...(driver.knownDaemons ?? []), ...(opts.knownDaemons ?? [])];
    const run = await runTool(box, file, args, env, { knownDaemons, timeoutMs: opts.timeoutMs, trace: opts.trace });
    const why = `${install.how}${install.output ? `:\n${install.output.trim()}` : ''}\n${explain(box, run)}`;
    if (process.env.SPAREHAND_E2E_VERBOSE) console.log(`--- ${driver.id}\n${why}`);
    return { box, install, run, why };
  } catch (error) {
    await disposeSandbox(box);
    throw error;
  }
}

/** Registers the clean-up of each test's sandbox and returns the runner the tests of one file use. */
export function scenarios(): (driver: ToolDriver, skip: Skip, opts?: ScenarioOptions) => Promise<Scenario> {
  let current: Scenario | undefined;
  afterEach(async () => {
    if (current) await disposeSandbox(current.box);
    current = undefined;
  });
  return async (driver, skip, opts) => {
    current = await runScenario(driver, skip, opts);
    return current;
  };
}

export const ran = (s: Scenario) => s.box.fake.results.filter((r) => r.text.includes('SPAREHAND_RUN=1'));
export const ranOutside = (s: Scenario) => s.box.fake.results.filter((r) => r.text.includes('SPAREHAND_RUN=unset'));

// The only host a run may call out to: the npm registry (OpenCode and Kilo install their plugin package at start).
const ALLOWED_CALLS_OUT = /^registry\.npmjs\.org:443$/;

/** Nothing the run started is still running (known daemons were ended by pid), and it called out nowhere. */
export function expectCleanRun(s: Scenario): void {
  expect(s.run.leftovers, `processes left running after the run:\n${s.why}`).toEqual([]);
  const out = s.box.egress.attempts.filter((a) => !ALLOWED_CALLS_OUT.test(a));
  expect(out, `the run tried to reach the network:\n${s.why}`).toEqual([]);
}

/** Rewrite: the model asked for `npm test` once, and the tool ran it through `sparehand run`. */
export function expectRewritten(s: Scenario): void {
  expect(s.box.fake.asked[0], `the model never asked for npm test:\n${s.why}`).toBe('npm test');
  expect(ranOutside(s), `npm test ran outside sparehand:\n${s.why}`).toEqual([]);
  expect(ran(s).length, `no tool result shows SPAREHAND_RUN=1:\n${s.why}`).toBeGreaterThan(0);
  expect(s.box.fake.asked, `the model had to ask more than once:\n${s.why}`).toEqual(['npm test']);
  expectCleanRun(s);
}

/** No `sparehand agent hook` process started (the hook answered inside the tool), counted with strace (`trace`). */
export function expectNoHookProcess(s: Scenario): void {
  expect(s.run.execs, `the run was not traced:\n${s.why}`).toBeDefined();
  expect(s.run.execs!.filter(startsHook), `a sparehand agent hook process started:\n${s.why}`).toEqual([]);
}

/** No process of sparehand's started at all (a light command), counted with strace (`trace`). */
export function expectNoSparehandProcess(s: Scenario): void {
  expect(s.run.execs, `the run was not traced:\n${s.why}`).toBeDefined();
  expect(s.run.execs!.filter(startsSparehand), `a process of sparehand's started:\n${s.why}`).toEqual([]);
}

/** Redirect: `npm test` was refused naming a `sparehand run` command, and that command then ran. */
export function expectRedirected(s: Scenario): void {
  const { asked, results } = s.box.fake;
  expect(asked[0], `the model never asked for npm test:\n${s.why}`).toBe('npm test');
  expect(ranOutside(s), `npm test ran outside sparehand:\n${s.why}`).toEqual([]);
  expect(asked.length, `the refusal named no sparehand run command:\n${s.why}`).toBe(2);
  expect(asked[1], `the replacement is not a sparehand run command:\n${s.why}`).toMatch(/sparehand(\.js)?'?"?\s+run\b.*npm test/);
  expect(results[0]?.text, `the first tool result does not name the replacement:\n${s.why}`).toContain(asked[1]);
  expect(ran(s).length, `the replacement did not run through sparehand:\n${s.why}`).toBeGreaterThan(0);
  expectCleanRun(s);
}

/** Left alone: the command ran exactly as the model sent it, outside sparehand (e.g. after uninstall). */
export function expectLeftAlone(s: Scenario): void {
  expect(s.box.fake.asked, `the model did not ask for npm test once:\n${s.why}`).toEqual(['npm test']);
  expect(ran(s), `npm test still ran through sparehand:\n${s.why}`).toEqual([]);
  expect(ranOutside(s).length, `npm test did not run as written:\n${s.why}`).toBe(1);
  expectCleanRun(s);
}

/** Denied: the user's deny rule held — no tool result shows the command ran, through sparehand or not. */
export function expectDenied(s: Scenario): void {
  expect(s.box.fake.asked[0], `the model never asked for npm test:\n${s.why}`).toBe('npm test');
  expect(s.box.fake.results[0]?.text, `the tool result is not a denial:\n${s.why}`).toMatch(/denied|not allowed|permission|requires approval/i);
  expect(ran(s), `the denied command ran through sparehand:\n${s.why}`).toEqual([]);
  expect(ranOutside(s), `the denied command ran:\n${s.why}`).toEqual([]);
  expectCleanRun(s);
}
