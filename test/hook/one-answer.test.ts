// A tool that runs another tool's settings hooks beside its own (TRAE runs Claude Code's, docs.trae.cn) calls both of
// sparehand's entries for one call: the call is answered once, in the caller's form, by the entry meant for it, and by
// the other tool's entry only where the caller has none of its own.
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { answerFor } from '../../lib/hook/answer.js';
import { BIN, sparehand } from '../helpers/cli.js';
import { tempDir } from '../helpers/context.js';
import { fixtureJson } from '../helpers/fixtures.js';

const INVOCATION = quote([process.execPath, realpathSync(BIN)]);
const TRAE_ANSWER = {
  hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: `${INVOCATION} run --or-local -- 'npm test'` } },
};

/** Every PreToolUse handler command in a Claude-style hooks file, whatever its matcher (a tool may map Claude's names). */
function handlersIn(path: string): string[] {
  let doc: { hooks?: { PreToolUse?: { hooks?: { command?: string }[] }[] } };
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  return (doc.hooks?.PreToolUse ?? []).flatMap((g) => (g.hooks ?? []).flatMap((h) => (h.command ? [h.command] : [])));
}

/** What TRAE CN gets back for one call: it runs its own hooks and Claude Code's, each with the same payload. */
async function traeCall(home: string, project: string, payload: unknown): Promise<unknown[]> {
  const files = [
    join(home, '.trae-cn', 'hooks.json'),
    join(project, '.trae', 'hooks.json'),
    join(home, '.claude', 'settings.json'),
    join(project, '.claude', 'settings.json'),
  ];
  const answers: unknown[] = [];
  // `sparehand` on PATH, as install asks for a project's hooks (they name it bare).
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  try {
    symlinkSync(BIN, join(bin, 'sparehand'));
  } catch {
    // there from an earlier call
  }
  for (const command of files.flatMap(handlersIn)) {
    const r = await execa('bash', ['-c', command], {
      input: JSON.stringify(payload),
      cwd: project,
      env: { HOME: home, PATH: `${bin}:${process.env.PATH}` },
      extendEnv: false,
      reject: false,
    });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    if (r.stdout.trim() !== '') answers.push(JSON.parse(r.stdout));
  }
  return answers;
}

/** A HOME and a git project in it, with the given tools installed (`--project` for those named with a `project:` prefix). */
async function installed(...tools: string[]): Promise<{ home: string; project: string }> {
  const home = tempDir('sparehand-home-');
  const project = join(home, 'app');
  mkdirSync(join(project, '.git'), { recursive: true });
  const env = { HOME: home, PATH: process.env.PATH, npm_config_update_notifier: 'false' };
  for (const t of tools) {
    const [id, where] = t.startsWith('project:') ? [t.slice(8), ['--project', project]] : [t, []];
    const r = await sparehand(['agent', 'install', id!, ...where], { env, cwd: home });
    expect([t, r.exitCode]).toEqual([t, 0]);
  }
  return { home, project };
}

const traePayload = (cwd: string) => ({ ...(fixtureJson('agents/trae/payload.json') as object), cwd });

describe("a TRAE call that reaches sparehand's Claude Code entry too", () => {
  it("is answered once, in TRAE's form, with both installed", async () => {
    const { home, project } = await installed('claude-code', 'trae');
    expect(await traeCall(home, project, traePayload(project))).toEqual([TRAE_ANSWER]);
  });

  it("is answered once, in TRAE's form, by the Claude Code entry where TRAE has none of its own", async () => {
    const { home, project } = await installed('claude-code');
    expect(await traeCall(home, project, traePayload(project))).toEqual([TRAE_ANSWER]);
  });

  it("is answered once where TRAE's own entry is the project's", async () => {
    const { home, project } = await installed('claude-code', 'project:trae');
    expect(await traeCall(home, project, traePayload(project))).toEqual([TRAE_ANSWER]);
  });

  it("is answered by the Claude Code entry in another project, where TRAE's project entry does not apply", async () => {
    const { home, project } = await installed('claude-code', 'project:trae');
    const other = join(home, 'other');
    mkdirSync(join(other, '.git'), { recursive: true });
    expect(await traeCall(home, other, traePayload(other))).toEqual([TRAE_ANSWER]);
    expect(project).not.toBe(other);
  });
});

describe('the hook installed for one tool, called by another', () => {
  const ctxIn = (home: string) => ({ home, cwd: home, env: { HOME: home, PATH: '/usr/bin:/bin', SPAREHAND_NO_PROC: '1' } });

  it("leaves the call to the caller's own hook, and says so in its log", async () => {
    const home = tempDir();
    mkdirSync(join(home, '.trae-cn'));
    writeFileSync(
      join(home, '.trae-cn', 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ command: 'sparehand agent hook --for trae' }] }] } }),
    );
    const a = await answerFor(ctxIn(home), 'claude-code', JSON.stringify(traePayload(home)));
    expect(a).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(readFileSync(join(home, '.local', 'state', 'sparehand', 'hook.log'), 'utf8')).toContain(
      "claude-code: a call of trae's, left to the hook installed for trae",
    );
  });

  it("answers the caller's own calls, and another tool's where the caller's file holds no hook of sparehand's for it", async () => {
    const home = tempDir();
    mkdirSync(join(home, '.trae-cn'));
    writeFileSync(
      join(home, '.trae-cn', 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ command: 'sparehand agent hook --for trae-x' }] }] } }),
    );
    expect((await answerFor(ctxIn(home), 'claude-code', JSON.stringify(traePayload(home)))).stdout).toContain('run --or-local');
    expect((await answerFor(ctxIn(home), 'trae', JSON.stringify(traePayload(home)))).stdout).toContain('run --or-local');
  });
});
