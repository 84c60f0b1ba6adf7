// A stand-in for what Claude Code lends its mods (`$`: the environment, the session, the file system) and for how it
// runs a mod's hooks (`on`, `next`), backed by node, as Claude Code 2.1.332 answers (checked 2026-12-03: docs/agents.md
// "The mod"): a failed read throws "… failed: ENOENT", a stat is {kind, size, mtimeMs, isLink}, a write makes the
// folders it needs. `agent test` runs the installed mod with it; so do the tests and bench/hook.js. Its reads are
// node's sync ones, answered at once: what a hop through Claude Code costs is Claude Code's (docs/performance.md).
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { claudeApproval } from './claude-permissions.js';

type Hook = ($: unknown, e: Record<string, unknown>, next: (e: Record<string, unknown>) => Promise<unknown>) => Promise<unknown>;

/** What the hooks of a mod module registered, by event. */
export interface Registered {
  hooks: Map<string, Hook>;
  /** The handlers given to `.catch` (what runs in a hook's place when it throws). */
  catches: Map<string, Hook>;
}

/** A failed read as Claude Code reports it (no stack: most reads are of files that are not there). */
function failed(call: string, path: string, e: unknown): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error(`sparehand: $.fs.${call}(${path}) failed: ${(e as NodeJS.ErrnoException).code ?? 'EIO'}`);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** `$` as Claude Code lends it to a mod, for a session in `cwd` (started in `root`) with environment `env`. */
export function standInDollar(at: { env: NodeJS.ProcessEnv; cwd: string; root?: string; sessionId?: string; pid?: number }) {
  const kind = (s: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) =>
    s.isSymbolicLink() ? 'link' : s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  return {
    env: { get: async (name: string) => at.env[name] },
    session: {
      id: async () => at.sessionId ?? '3f1c2b7a-9d0e-4c55-8a61-2f0d7e9b1c44',
      cwd: async () => at.cwd,
      root: async () => at.root ?? at.cwd,
      info: async () => ({ platform: process.platform }),
      machine: async () => ({ machine: process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch }),
    },
    process: { hookEnv: async () => ({ CLAUDECODE: '1', CLAUDE_PID: String(at.pid ?? process.pid) }) },
    fs: {
      read: async (path: string, opts?: { as?: string; length?: number }) => {
        try {
          if (opts?.as !== 'bytes') return readFileSync(path, 'utf8');
          const bytes = readFileSync(path);
          return { base64: bytes.subarray(0, opts.length ?? bytes.length).toString('base64') };
        } catch (e) {
          throw failed('read', path, e);
        }
      },
      stat: async (path: string, opts?: { resolve?: boolean }) => {
        try {
          const s = opts?.resolve ? statSync(path) : lstatSync(path);
          return { kind: kind(s), size: s.size, mtimeMs: s.mtimeMs, isLink: s.isSymbolicLink() };
        } catch (e) {
          throw failed('stat', path, e);
        }
      },
      list: async (path: string) => {
        try {
          const names = readdirSync(path, { withFileTypes: true });
          return names.map((d) => ({
            name: d.name,
            kind: d.isFile() ? 'file' : d.isDirectory() ? 'dir' : 'other',
            size: 0,
            mtimeMs: 0,
            isLink: d.isSymbolicLink(),
          }));
        } catch (e) {
          throw failed('list', path, e);
        }
      },
      write: async (path: string, text: string) => {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
      },
    },
    // Claude Code's verdict on a call, here from its permission rules as sparehand reads them (claude-permissions.ts).
    tool: {
      check: async ({ input }: { tool: string; input: { command: string } }) => {
        const approval = claudeApproval({ tool: 'Bash', command: input.command, cwd: at.cwd }, { home: at.env.HOME ?? '/', env: at.env });
        if (approval === 'allow') return { decision: 'allow', rule: 'Bash' };
        if (approval === 'deny') return { decision: 'deny', reason: `Permission to use Bash with command ${input.command} has been denied.` };
        return approval === 'ask' ? { decision: 'ask', rule: 'Bash' } : { decision: 'ask', reason: 'This command requires approval' };
      },
    },
    ui: { log: (_line: string) => undefined },
  };
}

/** Loads a mod's module (`file`, fresh each time) and calls its `register` as Claude Code does. */
export async function registerMod(file: string): Promise<Registered> {
  const m = (await import(`${pathToFileURL(file).href}?load=${Date.now()}-${Math.random()}`)) as { register(on: unknown): void };
  const registered: Registered = { hooks: new Map(), catches: new Map() };
  m.register((event: string, filterOrHook: unknown, maybeHook?: Hook) => {
    const hook = (typeof filterOrHook === 'function' ? filterOrHook : maybeHook) as Hook;
    registered.hooks.set(event, hook);
    return { catch: (handler: Hook) => registered.catches.set(event, handler) };
  });
  return registered;
}

/** Runs one event through a registered hook as Claude Code does: `next` is what Claude Code itself would do. */
export async function dispatch(
  mod: Registered,
  event: string,
  $: unknown,
  e: Record<string, unknown>,
  below: (e: Record<string, unknown>) => Promise<unknown> | unknown,
): Promise<unknown> {
  const hook = mod.hooks.get(event);
  if (!hook) return below(e);
  let called = false;
  const next = Object.assign(
    async (x: Record<string, unknown>) => {
      called = true;
      return below(x);
    },
    {
      get called() {
        return called;
      },
    },
  );
  try {
    return await hook($, e, next);
  } catch {
    const handler = mod.catches.get(event);
    return handler ? handler($, e, next) : below(e);
  }
}

/** What the mod at `file` does with one Bash call of `command` in `cwd` (`agent test` runs it, in a node of its own). */
export async function tryMod(file: string, command: string, cwd: string, env: NodeJS.ProcessEnv) {
  const mod = await registerMod(file);
  const $ = standInDollar({ env, cwd });
  const e = { command, description: 'sparehand agent test', tool: 'Bash', tool_use_id: 'toolu_sparehand_test' };
  let ran: Record<string, unknown> = e;
  const answer = (await dispatch(mod, 'tool.call', $, e, (x) => {
    ran = x;
    return { result: {} };
  })) as { deny?: unknown } | undefined;
  if (typeof answer?.deny === 'string') return { kind: 'refuse', reason: answer.deny };
  return ran.command === command ? { kind: 'leave' } : { kind: 'rewrite', command: String(ran.command) };
}
