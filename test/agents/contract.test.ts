// Every tool through the same checks: heavy → its exact answer, everything else → left alone, junk → left alone.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AGENTS, type AgentId, agentEnvVar, allAgents } from '../../lib/agents/index.js';

import { answerFor, callerOf } from '../../lib/hook/answer.js';
import { parseSettings } from '../../lib/install/json-target.js';
import { sparehand } from '../helpers/cli.js';
import { tempDir, tool } from '../helpers/context.js';
import { FIXTURES, fixtureJson } from '../helpers/fixtures.js';

const SELF = { node: '/usr/bin/node', script: '/opt/sparehand/bin/sparehand.js' };
const INVOCATION = '/usr/bin/node /opt/sparehand/bin/sparehand.js';

const fixture = (id: string, name: string): unknown => fixtureJson(`agents/${id}/${name}`);
const hasFixture = (id: string, name: string): boolean => readdirSync(`${FIXTURES}agents/${id}/`).includes(name);

/** A PATH holding an executable named `sparehand` (for tools whose rewrite names it bare). */
function pathWithSparehand(): string {
  const dir = tempDir('sparehand-path-');
  tool(dir, 'sparehand', 'exit 0');
  return `${dir}:/usr/bin:/bin`;
}

function ctxFor(env: NodeJS.ProcessEnv = {}) {
  const home = tempDir();
  return { home, cwd: home, env: { HOME: home, PATH: pathWithSparehand(), SPAREHAND_NO_PROC: '1', ...env }, self: SELF };
}

/** The expected answer with the placeholder filled in, as {stdout parsed, stderr, exitCode}. */
function expected(id: string, name: string): { stdout: unknown; stderr: string; exitCode: number } {
  const text = JSON.stringify(fixture(id, name)).replaceAll('@SPAREHAND@', INVOCATION);
  return JSON.parse(text);
}

async function run(id: string, payload: unknown, env: NodeJS.ProcessEnv = {}) {
  const a = await answerFor(ctxFor(env), id, typeof payload === 'string' ? payload : JSON.stringify(payload));
  return { stdout: a.stdout === '' ? null : JSON.parse(a.stdout), stderr: a.stderr, exitCode: a.exitCode, raw: a.stdout };
}

const withCommand = (payload: unknown, command: string): unknown =>
  JSON.parse(JSON.stringify(payload).replaceAll('npm test', command.replace(/\\/g, '\\\\').replace(/"/g, '\\"')));

const HOOKED = allAgents().filter((a) => a.payload !== undefined);
const leaveOf = (id: AgentId) => (AGENTS[id]!.leaveStdout ? JSON.parse(AGENTS[id]!.leaveStdout as string) : null);

describe('the registry', () => {
  // AgentId is the registry's keys: each key must be the id its spec answers to (--for, install records, docs).
  it("keys each tool by its spec's id", () => {
    expect(Object.entries(AGENTS).filter(([key, spec]) => spec.id !== key)).toEqual([]);
  });
});

describe.each(HOOKED.map((a) => [a.id]))('%s', (id) => {
  const payload = fixture(id, 'payload.json');

  it('answers a heavy command in its own form, keeping every other input field', async () => {
    expect(await run(id, payload)).toEqual({ ...expected(id, 'answer.json'), raw: expect.any(String) });
  });

  it.runIf(hasFixture(id, 'captured.json'))('answers the payload captured from the real program', async () => {
    const want = hasFixture(id, 'captured-answer.json') ? 'captured-answer.json' : 'answer.json';
    expect(await run(id, fixture(id, 'captured.json'))).toEqual({ ...expected(id, want), raw: expect.any(String) });
  });

  it("is the caller of its payload, whichever tool's hook is called (the most specific shape wins)", () => {
    const raw = payload as Record<string, unknown>;
    // A shape that tools share field for field (Claude Code's, which Qoder copies) cannot tell them apart: the hook
    // installed for one of them takes it as its own, any other hook as the first of them in the registry.
    const sharing = HOOKED.filter((a) => a.fallback === true && a.recognise?.(raw));
    const want = (named: (typeof HOOKED)[number]) => (!AGENTS[id]!.fallback ? id : sharing.includes(named) ? named.id : sharing[0]!.id);
    expect(callerOf(AGENTS[id]!, raw)?.id).toBe(id);
    expect(HOOKED.map((named) => callerOf(named, raw)?.id)).toEqual(HOOKED.map(want));
    // Only a shape other tools copy may fit too; no tool file needs to know another tool's fields.
    expect(
      allAgents()
        .filter((a) => a.id !== id && a.recognise?.(raw) && !a.fallback)
        .map((a) => a.id),
    ).toEqual([]);
  });

  it.each([
    ['a light command', 'ls -la'],
    ['a git command', 'git status'],
    ['an install', 'npm install'],
    ['a dev server', 'npm run dev'],
    ['a command already wrapped', "sparehand run --or-local -- 'npm test'"],
    ['a command wrapped by absolute path', "/usr/bin/node /opt/x/bin/sparehand.js run --or-local -- 'npm test'"],
    ['a command turned off by its prefix', 'SPAREHAND=off npm test'],
  ])('leaves alone %s', async (_what, command) => {
    const r = await run(id, withCommand(payload, command));
    expect([r.stdout, r.exitCode, r.stderr]).toEqual([leaveOf(id), 0, '']);
  });

  it.each([
    ['SPAREHAND=off', { SPAREHAND: 'off' }],
    ['inside a run (SPAREHAND_RUN=1)', { SPAREHAND_RUN: '1' }],
    [`${agentEnvVar(id)}=off`, { [agentEnvVar(id)]: 'off' }],
  ])('leaves everything alone with %s', async (_what, env) => {
    const r = await run(id, payload, env);
    expect([r.stdout, r.exitCode, r.stderr]).toEqual([leaveOf(id), 0, '']);
  });

  it.each([
    ['empty input', ''],
    ['not JSON', 'npm test'],
    ['a JSON array', '[1,2]'],
    ['JSON null', 'null'],
    ['a truncated payload', JSON.stringify(payload).slice(0, 40)],
    ['an empty object', '{}'],
  ])('leaves junk alone: %s', async (_what, text) => {
    const r = await run(id, text);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect([null, leaveOf(id)]).toContainEqual(r.stdout);
  });

  it('leaves a payload with a wrongly typed command alone', async () => {
    // (Copilot's documented toolArgs is a JSON string: there the quotes are escaped.)
    const r = await run(id, JSON.parse(JSON.stringify(payload).replace(/\\?"npm test\\?"/, '42')));
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect([null, leaveOf(id)]).toContainEqual(r.stdout);
  });

  it('leaves other tools of the same program alone', async () => {
    const text = JSON.stringify(payload);
    const other = AGENTS[id]!.shellTools.reduce((t, name) => t.replaceAll(`"${name}"`, '"Read"'), text);
    const r = await run(id, other);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect([null, leaveOf(id)]).toContainEqual(r.stdout);
  });
});

describe('redirect tools refuse once per session, then let the same command through', () => {
  it.each(HOOKED.filter((a) => a.connection === 'redirect').map((a) => [a.id]))('%s', async (id) => {
    const ctx = ctxFor();
    const text = JSON.stringify(fixture(id, 'payload.json'));
    const first = await answerFor(ctx, id, text);
    expect(first.stdout + first.stderr).toContain("Run this instead: /usr/bin/node /opt/sparehand/bin/sparehand.js run --or-local -- 'npm test'");
    expect(await answerFor(ctx, id, text)).toEqual({ stdout: AGENTS[id]!.leaveStdout ?? '', stderr: '', exitCode: 0 });
    // Another command in the same session is refused once too.
    const other = await answerFor(ctx, id, text.replace('npm test', 'cargo test'));
    expect(other.stdout + other.stderr).toContain("run --or-local -- 'cargo test'");
  });
});

describe('codex', () => {
  const ajv = new Ajv({ strict: false });
  const load = (name: string) => fixtureJson(`vendor-schemas/codex/${name}`) as object;
  const validOutput = ajv.compile(load('pre-tool-use.command.output.schema.json'));
  const validInput = ajv.compile(load('pre-tool-use.command.input.schema.json'));

  it('the fixture payloads fit the vendor input schema', () => {
    expect(validInput(fixture('codex', 'payload.json'))).toBe(true);
    expect(validInput(fixture('codex', 'captured.json'))).toBe(true);
  });

  it('the redirect answer validates against the vendor output schema', async () => {
    const r = await run('codex', fixture('codex', 'payload.json'));
    expect(validOutput(r.stdout), JSON.stringify(validOutput.errors)).toBe(true);
  });

  it('SPAREHAND_AGENT_CODEX=rewrite switches to allow + updatedInput, valid against the vendor schema', async () => {
    const r = await run('codex', fixture('codex', 'payload.json'), { SPAREHAND_AGENT_CODEX: 'rewrite' });
    expect(r).toEqual({ ...expected('codex', 'answer-rewrite.json'), raw: expect.any(String) });
    expect(validOutput(r.stdout), JSON.stringify(validOutput.errors)).toBe(true);
  });
});

describe('copilot-cli names sparehand bare', () => {
  it('leaves the command alone when no `sparehand` is on PATH', async () => {
    // A PATH with nothing on it (a machine may have sparehand in /usr/bin after `npm link`).
    const r = await run('copilot-cli', fixture('copilot-cli', 'captured.json'), { PATH: tempDir('sparehand-empty-path-') });
    expect([r.stdout, r.exitCode]).toEqual([null, 0]);
  });
});

describe('claude-code timeouts (docs/hook.md, "Timeouts")', () => {
  const payload = fixture('claude-code', 'payload.json') as { tool_input: Record<string, unknown> };
  const input = async (tool_input: Record<string, unknown>) =>
    (await run('claude-code', { ...payload, tool_input: { command: 'npm test', ...tool_input } })).stdout.hookSpecificOutput.updatedInput;

  it('a foreground call without a timeout gets the default raised (2 min + 5 min)', async () => {
    expect((await input({})).timeout).toBe(420_000);
  });

  it('a background call keeps its own timeout, raised, and gets none where it had none', async () => {
    // Background commands are not bounded by the default (claude-code #88702): adding one could end them (#90616).
    expect(await input({ run_in_background: true })).toEqual({ command: `${INVOCATION} run --or-local -- 'npm test'`, run_in_background: true });
    expect((await input({ run_in_background: true, timeout: 60_000 })).timeout).toBe(360_000);
  });
});

describe('permission parity (claude-code)', () => {
  const payload = fixture('claude-code', 'payload.json') as Record<string, unknown>;
  const withRules = (permissions: Record<string, string[]>, where: 'user' | 'project' | 'local' = 'user') => {
    const ctx = ctxFor();
    const project = tempDir('sparehand-project-');
    const file =
      where === 'user' ? join(ctx.home, '.claude', 'settings.json') : join(project, '.claude', where === 'local' ? 'settings.local.json' : 'settings.json');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify({ permissions }));
    return { ctx, p: { ...payload, cwd: project } };
  };
  const decision = (r: Awaited<ReturnType<typeof answerFor>>) =>
    r.stdout === '' ? 'left alone' : (JSON.parse(r.stdout).hookSpecificOutput.permissionDecision ?? 'no decision');

  it.each([
    ['no rule', {}, 'user', 'no decision'],
    ['an exact allow rule', { allow: ['Bash(npm test)'] }, 'user', 'allow'],
    ['a prefix allow rule in the project', { allow: ['Bash(npm:*)'] }, 'project', 'allow'],
    ['a glob allow rule in settings.local.json', { allow: ['Bash(npm *)'] }, 'local', 'allow'],
    ['an allow rule for another command', { allow: ['Bash(npm run build)'] }, 'user', 'no decision'],
    ['a deny rule', { allow: ['Bash'], deny: ['Bash(npm test)'] }, 'user', 'left alone'],
    ['a project deny rule', { deny: ['Bash(npm:*)'] }, 'project', 'left alone'],
    ['an ask rule', { allow: ['Bash(npm test)'], ask: ['Bash(npm test)'] }, 'user', 'no decision'],
  ] as const)('%s → %s', async (_what, permissions, where, want) => {
    const { ctx, p } = withRules(permissions as Record<string, string[]>, where);
    expect(decision(await answerFor(ctx, 'claude-code', JSON.stringify(p)))).toBe(want);
  });

  it('bypassPermissions approves the rewrite; a deny rule still wins', async () => {
    const { ctx, p } = withRules({});
    expect(decision(await answerFor(ctx, 'claude-code', JSON.stringify({ ...p, permission_mode: 'bypassPermissions' })))).toBe('allow');
    const denied = withRules({ deny: ['Bash(npm test)'] });
    expect(decision(await answerFor(denied.ctx, 'claude-code', JSON.stringify({ ...denied.p, permission_mode: 'bypassPermissions' })))).toBe('left alone');
  });
});

describe('one hook, many callers', () => {
  it.each([
    ['copilot-vscode', 'payload.json'],
    ['cursor', 'payload.json'],
    ['devin', 'payload.json'],
  ] as const)("the claude-code hook answers a %s payload in that tool's form", async (id, name) => {
    expect(await run('claude-code', fixture(id, name))).toEqual({ ...expected(id, 'answer.json'), raw: expect.any(String) });
  });

  it('the copilot-cli hook answers a PascalCase (Claude-compatible) payload in that form, naming sparehand bare', async () => {
    const p = {
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      timestamp: '2026-11-29T10:00:00.000Z',
      cwd: '/home/dev/app',
      tool_name: 'Bash',
      tool_input: { command: 'npm test', description: 'Run tests' },
    };
    expect((await run('copilot-cli', p)).stdout).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        updatedInput: { command: "sparehand run --or-local -- 'npm test'", description: 'Run tests' },
      },
    });
  });

  it.each(readdirSync(`${FIXTURES}unconnected/`).map((f) => [f]))(
    'every hook leaves alone a heavy command in the payload of an event sparehand does not answer (%s)',
    async (file) => {
      const text = JSON.stringify(fixtureJson(`unconnected/${file}`)).replaceAll('echo ORIGINAL-COMMAND', 'npm test');
      // Left alone: exit 0, nothing on stderr, and on stdout nothing or a tool's "leave".
      const leaves = [null, ...HOOKED.map((a) => leaveOf(a.id))];
      for (const a of HOOKED) {
        const r = await run(a.id, text);
        expect([a.id, r.exitCode, r.stderr, leaves.some((l) => JSON.stringify(l) === JSON.stringify(r.stdout))]).toEqual([a.id, 0, '', true]);
      }
    },
  );

  it('an unknown --for value leaves everything alone', async () => {
    expect(await answerFor(ctxFor(), 'nope', JSON.stringify(fixture('claude-code', 'payload.json')))).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
    });
  });
});

/**
 * What install writes must not void the tool's file: every hook event it names is one the tool knows (one unknown
 * name voids Cursor's whole hooks.json), and the file validates against the tool's own schema where one is vendored
 * (test/fixtures/vendor-schemas/PROVENANCE.md).
 */
describe("every written hook file names only known events and fits the tool's own schema", () => {
  const FILE_SCHEMAS: Record<string, { file: string; ajv: () => Ajv | Ajv2020 }> = {
    'claude-code': { file: 'claude-code/claude-code-settings.json', ajv: () => new Ajv({ strict: false, allErrors: true, validateFormats: false }) },
    'gemini-cli': { file: 'gemini-cli/settings.schema.json', ajv: () => new Ajv2020({ strict: false, allErrors: true, validateFormats: false }) },
  };
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (id: string): ValidateFunction | undefined => {
    const s = FILE_SCHEMAS[id];
    if (!s) return undefined;
    if (!validators.has(id)) validators.set(id, s.ajv().compile(fixtureJson(`vendor-schemas/${s.file}`) as object));
    return validators.get(id);
  };
  const withJson = allAgents().filter((a) => a.install.targets.some((t) => t.kind === 'json'));

  it.each(withJson.map((a) => [a.id]))('%s', async (id) => {
    const agent = AGENTS[id]!;
    const home = tempDir('sparehand-home-');
    const project = tempDir('sparehand-project-');
    const env = { HOME: home, PATH: process.env.PATH! };
    expect((await sparehand(['agent', 'install', id], { env })).exitCode).toBe(0);
    expect((await sparehand(['agent', 'install', id, '--project', project], { env })).exitCode).toBe(0);
    for (const t of agent.install.targets) {
      if (t.kind !== 'json') continue;
      const path = t.path({ home, env, project });
      const written = parseSettings(path, readFileSync(path, 'utf8'), t.comments);
      // The object that holds sparehand's hook list: in a new file its keys are the event names install wrote.
      const holder = t.arrayPath.length > 1 ? at(written, t.arrayPath.slice(0, -1)) : written;
      const events = Object.keys(holder as object).filter((k) => k !== 'version');
      const known = agent.facts.hookEvents;
      if (t.arrayPath.length > 1 || known) expect({ path, unknown: events.filter((e) => !known?.includes(e)) }).toEqual({ path, unknown: [] });
      const validate = validatorOf(id);
      if (validate) expect([path, validate(written) ? [] : validate.errors]).toEqual([path, []]);
    }
  });

  it('the vendored Claude Code schema refuses an event it does not know (so this check has teeth)', () => {
    const validate = validatorOf('claude-code')!;
    expect(validate({ hooks: { PreToolUse: [] } })).toBe(true);
    expect(validate({ hooks: { PreSkillShellCommand: [] } })).toBe(false);
    expect(AGENTS['claude-code']!.facts.hookEvents).not.toContain('PreSkillShellCommand');
  });
});

const at = (v: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), v);

describe("a tool's hookFiles are the files its install writes (the hook reads them to answer each call once)", () => {
  const withFiles = allAgents().filter((a) => a.hookFiles !== undefined);
  it('some tool has them', () => expect(withFiles.length).toBeGreaterThan(0));
  it.each(withFiles.map((a) => [a.id]))('%s', (id) => {
    const a = AGENTS[id]!;
    const base = { home: '/home/dev', env: {}, project: '/home/dev/app' };
    expect([...a.hookFiles!(base)].sort()).toEqual(a.install.targets.map((t) => t.path(base)).sort());
  });
});
