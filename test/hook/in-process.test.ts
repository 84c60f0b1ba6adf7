// The hooks that run inside a tool's own process give the answer the hook process gives, for every payload: Claude
// Code's mod (as built: dist/claude-mod-core.mjs, run against a stand-in of what Claude Code lends it) against the
// settings hook, and the plugin of OpenCode and Kilo (as built: dist/opencode-plugin.mjs) against `agent hook`, over the
// captured payloads and the classifier's corpus, with and without a config, permission rules, a project, off switches.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { MOD_ENV, claudeMod } from '../../lib/agents/claude-mod.js';
import { dispatch, registerMod, standInDollar } from '../../lib/agents/claude-mod-stand-in.js';
import { pluginSource } from '../../lib/agents/opencode-plugin.js';
import type { WireAnswer } from '../../lib/agents/types.js';
import { answerFor } from '../../lib/hook/answer.js';
import { hookCommand } from '../../lib/install/hook-command.js';
import { EDGES, HEAVY, LOCAL, NOT_HEAVY } from '../classify/corpus.js';
import { tempDir } from '../helpers/context.js';
import { FIXTURES } from '../helpers/fixtures.js';

/** Every command of the classifier's corpus, and a few shapes of call the corpus does not hold. */
const COMMANDS = [
  ...new Set([
    ...HEAVY.map(([c]) => c),
    ...LOCAL.map(([c]) => c),
    ...NOT_HEAVY.map(([c]) => c),
    ...EDGES.flatMap(([, cases]) => cases.map(([c]) => c)),
    'mybuild --all',
    'SPAREHAND=off npm test',
    "sparehand run --or-local -- 'npm test'",
    'cd .. && npm test',
    // Inside the project only from a folder below its root (the project's root is found on disk).
    'npx vitest run ../other/a.test.ts',
    // Split in two on one platform; sent whole when the worker's is another (the platforms file, this machine's).
    'make && ./a.out && npm start',
    'npm test &',
  ]),
];

const fixture = (path: string): Record<string, unknown> => JSON.parse(readFileSync(`${FIXTURES}${path}`, 'utf8')) as Record<string, unknown>;

/** A HOME (and a project in it, `project/sub` the folder calls run in) set up as one of the cases says. */
function setUp(at: string, c: Case): { home: string; cwd: string; env: NodeJS.ProcessEnv } {
  const home = join(at, 'home');
  const project = join(home, 'project');
  const cwd = join(project, 'sub');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  if (c.config !== undefined) {
    mkdirSync(join(home, '.config', 'sparehand'), { recursive: true });
    writeFileSync(join(home, '.config', 'sparehand', 'config.json'), typeof c.config === 'string' ? c.config : JSON.stringify(c.config));
  }
  if (c.platforms) {
    mkdirSync(join(home, '.cache', 'sparehand', 'workers'), { recursive: true });
    writeFileSync(join(home, '.cache', 'sparehand', 'workers', 'platforms.json'), JSON.stringify(c.platforms));
  }
  if (c.permissions) {
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: c.permissions }));
  }
  return { home, cwd, env: { HOME: home, PATH: '/usr/bin:/bin', SPAREHAND_NO_PROC: '1', ...c.env } };
}

interface Case {
  name: string;
  config?: unknown;
  permissions?: Record<string, string[]>;
  env?: Record<string, string>;
  /** The workers' platforms as sparehand last saw them (its cache). */
  platforms?: Record<string, { platform: string; seen: string }>;
}

const CASES: Case[] = [
  { name: 'no config' },
  { name: 'rules in the config', config: { rules: { heavy: ['mybuild'], local: ['npm test'] } } },
  { name: 'a broken config', config: '{"rules": ' },
  {
    name: 'a worker of another platform',
    config: { workers: [{ name: 'w', destination: 'dev@w.example' }] },
    platforms: { '["dev@w.example",null,null]': { platform: 'windows arm64', seen: '2026-12-03T00:00:00.000Z' } },
  },
  { name: 'permission rules', permissions: { allow: ['Bash(npm test)', 'Bash(cargo *)'], deny: ['Bash(cargo build)'], ask: ['Bash(make *)'] } },
  { name: 'every hook off', env: { SPAREHAND: 'off' } },
  { name: 'its own hook off', env: { SPAREHAND_AGENT_CLAUDE_CODE: 'off', SPAREHAND_AGENT_OPENCODE: 'off', SPAREHAND_AGENT_KILO: 'off' } },
];

/** The sparehand every rewrite names (a file that is there: the plugin checks). */
const SCRIPT = join(tempDir('sparehand-install-'), 'sparehand.js');
writeFileSync(SCRIPT, '');

/** The settings hook's answer (the same code as the hook process), with the variables it read noted. */
async function settingsHook(env: NodeJS.ProcessEnv, cwd: string, agent: string, payload: unknown, read: Set<string>): Promise<WireAnswer> {
  const noted = new Proxy(env, {
    get: (t, k) => {
      if (typeof k === 'string') read.add(k);
      return t[k as string];
    },
  });
  return answerFor({ home: env.HOME!, cwd, env: noted, self: { node: process.execPath, script: SCRIPT } }, agent, JSON.stringify(payload));
}

describe("Claude Code's mod answers as its settings hook does", () => {
  const hook = { ...hookCommand('claude-code'), node: process.execPath, script: SCRIPT };

  /** The mod as install writes it, in `home`. */
  function installMod(home: string): string {
    for (const t of claudeMod.targets) {
      const path = t.path({ home, env: {} });
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, t.content(hook));
    }
    return claudeMod.targets[0]!.path({ home, env: {} });
  }

  for (const c of CASES) {
    it(`over the captured payloads and the classifier's corpus: ${c.name}`, async () => {
      const read = new Set<string>();
      const seen = { rewritten: 0, approved: 0 };
      const source = setUp(tempDir('sparehand-settings-'), c);
      const inside = setUp(tempDir('sparehand-mod-'), c);
      const module = installMod(inside.home);
      for (const name of ['payload.json', 'captured.json']) {
        const template = fixture(`agents/claude-code/${name}`);
        // A fresh load per session: the mod reads the session (and its environment) once.
        const mod = await registerMod(module);
        const $ = standInDollar({ env: inside.env, cwd: inside.cwd, sessionId: String(template.session_id) });
        for (const command of COMMANDS) {
          const toolInput = { ...(template.tool_input as Record<string, unknown>), command };
          const expected = await settingsHook(source.env, source.cwd, 'claude-code', { ...template, cwd: source.cwd, tool_input: toolInput }, read);
          const e = { ...toolInput, tool: 'Bash', tool_use_id: template.tool_use_id };
          let ran: Record<string, unknown> | undefined;
          const denied = (await dispatch(mod, 'tool.call', $, e, (x) => {
            ran = x;
            return { result: {} };
          })) as { deny?: string };
          const asked = { decision: 'ask', reason: 'This command requires approval' };
          const { tool, tool_use_id, ...input } = ran ?? e;
          const verdict = await dispatch(mod, 'tool.check', $, { tool, input, tool_use_id }, () => asked);
          const out = expected.stdout ? (JSON.parse(expected.stdout).hookSpecificOutput as Record<string, unknown>) : undefined;
          const want = {
            ran: out?.updatedInput ? { ...e, ...(out.updatedInput as object) } : e,
            verdict: out?.permissionDecision === 'allow' ? { decision: 'allow' } : asked,
            denied: out?.permissionDecision === 'deny' ? out.permissionDecisionReason : undefined,
          };
          expect({ command, name, ran, verdict, denied: denied?.deny }).toEqual({ command, name, ...want });
          if (out?.updatedInput) seen.rewritten++;
          if (out?.permissionDecision === 'allow') seen.approved++;
        }
      }
      // Not a comparison of two hooks that leave everything alone: switched on, they rewrite, and approve by the rules.
      const on = c.env === undefined;
      expect({ rewrote: seen.rewritten > 0, approved: seen.approved > 0 }).toEqual({ rewrote: on, approved: c.permissions !== undefined });
      // What the settings hook read of its environment, Claude Code lends the mod by name.
      expect([...read].filter((n) => !(MOD_ENV as readonly string[]).includes(n))).toEqual([]);
    }, 120_000);
  }
});

describe("OpenCode's and Kilo's plugin answers as the hook process does", () => {
  for (const host of ['opencode', 'kilo'] as const) {
    for (const c of CASES) {
      it(`${host}, over the captured payloads and the classifier's corpus: ${c.name}`, async () => {
        const source = setUp(tempDir('sparehand-hook-'), c);
        const inside = setUp(tempDir('sparehand-plugin-'), c);
        const file = join(tempDir('sparehand-plugin-file-'), 'sparehand.js');
        writeFileSync(file, pluginSource({ ...hookCommand(host), node: process.execPath, script: SCRIPT }));
        const calls = ['payload.json', 'captured.json'].flatMap((name) => {
          const t = fixture(`agents/${host}/${name}`);
          return COMMANDS.map((command) => ({ tool: t.tool, sessionID: t.sessionID, callID: t.callID, args: { ...(t.args as object), command } }));
        });
        // The plugin in a node of its own, as the tool loads it, with the environment of the case.
        const script = `
          const m = await import(${JSON.stringify(pathToFileURL(file).href)});
          const hooks = await m.SparehandPlugin({ directory: ${JSON.stringify(inside.cwd)} });
          const out = [];
          for (const c of ${JSON.stringify(calls)}) {
            const args = { ...c.args };
            try {
              await hooks['tool.execute.before']({ tool: c.tool, sessionID: c.sessionID, callID: c.callID }, { args });
              out.push({ args });
            } catch (e) {
              out.push({ error: e.message });
            }
          }
          process.stdout.write(JSON.stringify(out));`;
        const r = await execa(process.execPath, ['--input-type=module', '-e', script], { env: inside.env, extendEnv: false });
        const got = JSON.parse(r.stdout) as unknown[];
        const read = new Set<string>();
        let rewritten = 0;
        for (const [i, call] of calls.entries()) {
          const payload = { host, ...call, directory: source.cwd };
          const expected = await settingsHook(source.env, source.cwd, host, payload, read);
          const answer = expected.stdout ? (JSON.parse(expected.stdout) as { args?: object; error?: string }) : {};
          const want = answer.error ? { error: answer.error } : { args: answer.args ?? call.args };
          expect({ command: call.args.command, got: got[i] }).toEqual({ command: call.args.command, got: want });
          if (answer.args) rewritten++;
        }
        expect(rewritten > 0).toBe(c.env === undefined);
      }, 120_000);
    }
  }
});
