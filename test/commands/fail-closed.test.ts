// A setting of the user's that makes a tool fail closed on sparehand's hook (Claude Code 2.1.295's onFailure: "block",
// goose's on_failure: "block"): sparehand never writes one, and `agent test` and `doctor` say so when the user's file has
// it on sparehand's handler, since the hook leaves commands alone when it fails and the setting turns that into refusals.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allAgents } from '../../lib/agents/index.js';
import type { JsonHookTarget } from '../../lib/agents/types.js';
import type { CheckResult } from '../../lib/checks/hook-check.js';
import { installedHandlers } from '../../lib/install/json-target.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';

const failClosed = allAgents().flatMap((a) =>
  a.install.targets.filter((t): t is JsonHookTarget => t.kind === 'json' && t.scope === 'user' && t.failClosed !== undefined).map((t) => [a.id, t] as const),
);

const homeEnv = () => {
  const home = tempDir('sparehand-home-');
  return { home, env: { HOME: home, PATH: process.env.PATH, npm_config_update_notifier: 'false' } };
};

/** The file with `key: value` set on sparehand's handler (or, `onUsers`, on a handler of the user's beside it). */
function setOnHandler(t: JsonHookTarget, path: string, onUsers = false): void {
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  let list = doc;
  for (const k of t.arrayPath) list = list[k];
  const group = list.find((e: unknown) => t.isOurs(e));
  const { key, value } = t.failClosed!;
  if (onUsers) group.hooks.push({ type: 'command', command: 'my-guard', [key]: value });
  else group.hooks.find((h: unknown) => t.handlers!.isOurs(h))[key] = value;
  writeFileSync(path, JSON.stringify(doc, null, 2));
}

describe('settings that make a tool fail closed', () => {
  it('are known for Claude Code and goose', () => {
    expect(failClosed.map(([id, t]) => [id, t.failClosed!.key, t.failClosed!.value])).toEqual([
      ['claude-code', 'onFailure', 'block'],
      ['goose', 'on_failure', 'block'],
    ]);
  });

  it.each(failClosed)('%s: sparehand never writes it', async (id, t) => {
    const { home, env } = homeEnv();
    expect((await sparehand(['agent', 'install', id], { env, cwd: home })).exitCode).toBe(0);
    const path = t.path({ home, env });
    const handlers = installedHandlers(t, path, readFileSync(path, 'utf8'));
    expect(handlers.length).toBe(1);
    expect(handlers.map((h) => t.failClosed!.key in h)).toEqual([false]);
  });

  it.each(failClosed)("%s: agent test and doctor warn when the user set it on sparehand's hook", async (id, t) => {
    const { home, env } = homeEnv();
    expect((await sparehand(['agent', 'install', id], { env, cwd: home })).exitCode).toBe(0);
    const path = t.path({ home, env });
    setOnHandler(t, path);
    const { key, value, source } = t.failClosed!;
    const name = allAgents().find((a) => a.id === id)!.name;
    const warning = `${path}: ${key}: "${value}" on sparehand's hook makes ${name} block the command whenever the hook cannot start or times out (${source}); sparehand's hook leaves commands alone when it fails, so remove the setting`;

    const json = await sparehand(['agent', 'test', id, '--json'], { env, cwd: home });
    const result = (JSON.parse(json.stdout) as { results: CheckResult[] }).results[0]!;
    expect([result.status, result.warnings, json.exitCode]).toEqual(['working', [warning], 0]);
    const human = await sparehand(['agent', 'test', id], { env, cwd: home });
    expect(human.stdout).toContain(`\n  warning: ${warning}\n`);

    const doctor = await sparehand(['doctor', '--json'], { env, cwd: home });
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; warning?: boolean; detail: string }[] }).checks;
    expect(checks.filter((c) => c.name === `hook: ${id} (user)`)).toEqual([
      { name: `hook: ${id} (user)`, ok: true, detail: `${path}: working` },
      { name: `hook: ${id} (user)`, ok: true, warning: true, detail: warning },
    ]);
    expect((await sparehand(['doctor'], { env, cwd: home })).stdout).toContain(`\nwarn hook: ${id} (user): ${warning}\n`);
  });

  it.each(failClosed)("%s: no warning for the setting on a handler of the user's own", async (id, t) => {
    const { home, env } = homeEnv();
    expect((await sparehand(['agent', 'install', id], { env, cwd: home })).exitCode).toBe(0);
    setOnHandler(t, t.path({ home, env }), true);
    const json = await sparehand(['agent', 'test', id, '--json'], { env, cwd: home });
    expect((JSON.parse(json.stdout) as { results: CheckResult[] }).results[0]!.warnings).toBeUndefined();
  });
});
