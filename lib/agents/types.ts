// The shape every coding tool fills in (one file per tool), and the neutral answer the hook core decides.
// The core (lib/hook, lib/install, lib/commands) reads only these fields and never names a tool.
// A tool's id is a string here; the registry (index.ts) makes its keys the type `AgentId`, and a test holds each
// key to its spec's id (no import back from here to the registry: it imports every tool, which imports this).
import type { Shape } from './payload-shape.js';

/**
 * rewrite: the hook replaces the command; redirect: the hook can only refuse, naming the replacement;
 * note: no usable hook, an instruction file asks the model; none: cannot be connected at all.
 */
export type ConnectionKind = 'rewrite' | 'redirect' | 'note' | 'none';

/** One shell call as the core sees it, read out of a tool's payload. */
export interface ShellCall {
  /** The tool's name for what it is about to call (the core goes on only for the spec's `shellTools`). */
  tool: string;
  command: string;
  /** Working folder of the call, when the payload says. */
  cwd?: string;
  /** The tool's own timeout for this call, in milliseconds, when the payload carries one. */
  timeoutMs?: number;
  /** Session (or task/conversation) id: redirect-once state is kept per session. */
  sessionId?: string;
  /** The tool's permission mode, when the payload carries it (`default`, `bypassPermissions`, …). */
  permissionMode?: string;
  /** The call runs in the background: the tool's default timeout is not its own, so the rewrite adds none. */
  background?: boolean;
}

/** What the core decided, before it is put in the tool's own form. */
export type HookAnswer =
  | { kind: 'leave' }
  /** Replace the command; `approve` marks it pre-approved where the tool has such a flag. */
  | { kind: 'rewrite'; command: string; timeoutMs?: number; approve: boolean }
  /** Refuse; `reason` names `replacement`, the exact command to run instead. */
  | { kind: 'refuse'; reason: string; replacement: string };

/** The hook process's whole output in the tool's form. Empty stdout + exit 0 = leave alone. */
export interface WireAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** What the user's own permission rules say about the original command (permission parity). */
export type Approval = 'allow' | 'deny' | 'ask' | 'unknown';

export interface Source {
  title: string;
  url: string;
  /** Day the source was read, YYYY-MM-DD. */
  read: string;
}

/** A version of the real program in which the connection was seen working. */
export interface Confirmed {
  package: string;
  version: string;
  /** YYYY-MM-DD */
  date: string;
  how: string;
  /** Other npm packages the program needed to run on a machine like the tests' (`npm run test:agents` installs them too). */
  needs?: readonly string[];
}

/** Where install puts things: HOME for user scope, the project folder for `--project`. */
export interface InstallBase {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Set for `--project DIR`. */
  project?: string;
}
export type Scope = 'user' | 'project';

/**
 * A hook entry inside a JSON settings file. Install navigates `arrayPath` (creating objects as needed),
 * replaces sparehand's entry (found by `isOurs`) or appends `entry(command)`; uninstall removes it and
 * prunes what became empty. `seed` is what a new file starts as (e.g. `{ version: 1 }`).
 */
export interface JsonHookTarget {
  kind: 'json';
  scope: Scope;
  path: (base: InstallBase) => string;
  /** The tool accepts comments in this file (JSON with comments). */
  comments: boolean;
  seed?: Record<string, unknown>;
  arrayPath: readonly string[];
  entry: (hook: HookCommand) => Record<string, unknown>;
  /** Recognises sparehand's entry (any version of it) among the user's. */
  isOurs: (entry: unknown) => boolean;
  /** Reads back the installed command from an entry of ours. */
  commandOf: (entry: unknown) => string | undefined;
  /**
   * Where an entry is a group of handlers (`{matcher, hooks: [...]}`): the key of that list and sparehand's
   * handler in it. A handler the user adds to sparehand's group stays through install and uninstall.
   */
  handlers?: { key: string; isOurs: (handler: unknown) => boolean };
  /**
   * A setting of sparehand's handler with which the tool blocks the call whenever the hook cannot start, times out or
   * exits oddly (Claude Code's `onFailure: "block"`). sparehand never writes it: `agent test` and `doctor` warn when the
   * user's file sets it, since the hook fails open by itself and the setting turns a broken sparehand into refusals.
   */
  failClosed?: FailClosedSetting;
}

/** A key of a hook handler, and the value of it that makes the tool fail closed, with where that was read. */
export interface FailClosedSetting {
  key: string;
  value: string;
  /** Where the setting is documented (the tool's version or page). */
  source: string;
}

/** A whole file that belongs to sparehand (a plugin, an executable hook). */
export interface OwnFileTarget {
  kind: 'file';
  scope: Scope;
  path: (base: InstallBase) => string;
  mode?: number;
  content: (command: HookCommand) => string;
  /** Reads back the installed command from the file's text. */
  commandOf: (text: string) => string | undefined;
  /**
   * For a file the tool loads as a module (a plugin) rather than runs: JavaScript (an ES module run by node)
   * that loads `file`, feeds it one shell call and prints the neutral outcome as JSON
   * (`{"kind":"rewrite","command"}` | `{"kind":"refuse","reason"}` | `{"kind":"leave"}`). `agent test` uses it.
   */
  probe?: (file: string, command: string, cwd: string) => string;
}

/**
 * The hook inside the tool's own process (a Claude Code mod), installed at user level in place of that level's targets
 * where the installed program can load it; elsewhere the targets answer as before. Never both (lib/install/engine.ts);
 * `agent status` and `agent test` say which is in place and why.
 */
export interface InProcessHook {
  /** How messages name it: "a mod". */
  name: string;
  /** Its files, all sparehand's (the first is the one `agent test` runs). */
  targets: readonly OwnFileTarget[];
  /** The first version of the program that loads it. */
  since: string;
  /** Why the program here would not load it though new enough (a managed setting, turned off by the user), or undefined. */
  blockedBy?: (base: InstallBase) => string | undefined;
  /** What the user sees the first time, or must do, after install. */
  afterInstall?: readonly string[];
}

/**
 * A hook entry as one table of an array of tables in a TOML file (`[[hooks]]`, `[[hooks.PreToolUse]]`). Install appends
 * sparehand's table (or replaces it where it is), uninstall removes exactly its text; the user's tables, keys and
 * comments stay.
 */
export interface TomlHookTarget {
  kind: 'toml';
  scope: Scope;
  path: (base: InstallBase) => string;
  /** The array's keys: `['hooks']` for `[[hooks]]`, `['hooks', 'PreToolUse']` for `[[hooks.PreToolUse]]`. */
  arrayPath: readonly string[];
  /** sparehand's table (strings, numbers and booleans only). */
  entry: (hook: HookCommand) => Record<string, string | number | boolean>;
  /** Recognises sparehand's table (any version of it) among the user's. */
  isOurs: (entry: unknown) => boolean;
  /** Reads back the installed command from a table of ours. */
  commandOf: (entry: unknown) => string | undefined;
}

export type InstallTarget = JsonHookTarget | TomlHookTarget | OwnFileTarget;

/** A marked block in the tool's instruction file asking the model to use `sparehand run`. */
export interface NoteTarget {
  scope: Scope;
  path: (base: InstallBase) => string;
}

/** The command the tool runs as its hook: absolute node + absolute script, so a bare PATH still works. */
export interface HookCommand {
  node: string;
  script: string;
  agent: string;
  /** The ready shell string: `"<node>" "<script>" agent hook --for <id>`. */
  shell: string;
  /**
   * A project's files (committed, read on every teammate's machine): no path of this machine; `sparehand` is looked
   * up on PATH and the hook does nothing where it is not there. `node` is then empty and `script` is `sparehand`.
   */
  portable?: boolean;
}

/**
 * A tool that runs a hook only once the user trusted its exact hash, kept in a TOML file (`--trust` writes it,
 * `agent status` checks it).
 */
export interface HashTrust {
  /** How to trust the hook by hand in the tool. */
  howTo: string;
  /** The TOML file where the tool keeps its trust entries. */
  file: (base: InstallBase) => string;
  /** Table path of the entry for handler `handler` of group `group` in the hooks file at `hooksRealPath`. */
  table: (hooksRealPath: string, group: number, handler: number) => readonly string[];
  /** Key inside that table holding the hash. */
  field: string;
  /** The hash the tool expects for the handler, from the group entry as written in the hooks file. */
  hash: (group: Record<string, unknown>, handler: number) => string;
  /** Asks the real program for the hash it expects (`args` start its JSON-RPC server on stdio). */
  confirm?: {
    args: readonly string[];
    /** Given a JSON-RPC session, the hash the program reports for the handler (undefined: not listed). */
    currentHash: (
      rpc: { call: (method: string, params?: unknown) => Promise<unknown>; notify: (method: string, params?: unknown) => void },
      where: { cwd: string; hooksRealPath: string; group: number; handler: number },
    ) => Promise<string | undefined>;
  };
}

/** An environment variable that says something: set (to anything but ''), or set to `value`. */
export interface EnvMarker {
  name: string;
  value?: string;
}

/** The network a sandboxed command has: none at all, only the proxy in its environment, all of it, or not known. */
export type SandboxNetwork = 'cut' | 'proxy' | 'open' | 'unknown';

/**
 * Where the tool's sandbox is switched on, widened and read: a settings file (JSON or TOML) and keys in it. Keys are
 * paths of object (table) keys. lib/sandbox reads them for `agent status`, `doctor` and a run's one line, and
 * `agent install --sandbox-access` writes them (user level).
 */
export interface SandboxSettings {
  format: 'json' | 'toml';
  /** The user-level file (read, and where --sandbox-access writes). */
  file: (base: InstallBase) => string;
  /** Files in a project that add to it (lists add up; a later file's switch wins), when the tool has them. */
  projectFiles?: readonly ((base: InstallBase & { project: string }) => string)[];
  /** The key that switches the sandbox; its values that mean off, and those no setting below widens. */
  switch?: { key: readonly string[]; off: readonly (string | boolean)[]; fixed?: readonly (string | boolean)[] };
  /** A list of extra folders commands may write (absolute paths; `~/` where the tool expands it). */
  writable?: { key: readonly string[] };
  /** A boolean that opens the whole network to every sandboxed command (the tool has no per-host setting). */
  network?: { key: readonly string[] };
  /** A list of hosts sandboxed commands may reach: `host:port` entries (or `host`, matching every port). */
  hosts?: { key: readonly string[]; withPort: boolean };
  /** Folders a sandboxed command may always write, besides the project (`$TMPDIR`: the temp folder). */
  alwaysWritable?: readonly string[];
  /** What the user must do for a change to take effect (`restart Codex`), when anything. */
  takesEffect?: string;
}

/**
 * What only the CLI reads of a spec (install, `agent` commands, the docs). The hook's full path is built without these
 * (scripts/build.js), and reads specs as `HookSpec`, so that the type check holds it to that.
 */
export const CLI_ONLY_FIELDS = ['why', 'facts', 'program', 'samplePayload', 'install'] as const;

/** A spec as the hook's full path has it. */
export type HookSpec<P = unknown> = Omit<AgentSpec<P>, (typeof CLI_ONLY_FIELDS)[number]>;
/**
 * The tool's own sandbox for the commands it runs, as data (no code: the hook never reads it). lib/sandbox tells from
 * inside a command whether it is in it, names it in the one line a run prints, reads and widens its settings.
 */
export interface SandboxSpec {
  /** How a message names it: "Codex's sandbox". */
  name: string;
  /** Whether it is on when the user's settings do not say. */
  onByDefault: boolean;
  /** Whether the facts below were seen in the real program (`npm run test:agents`) or read in its documentation. */
  checked: 'real program' | 'documentation';
  /** Variables every command the tool runs has, sandboxed or not: whose command this is. */
  agentEnv: readonly EnvMarker[];
  /** Variables only a sandboxed command has, and the network each means. */
  insideEnv: readonly (EnvMarker & { network: SandboxNetwork })[];
  /** Paths in the project it keeps read-only even where the project is writable (the sync back must leave them). */
  readOnlyInProject: readonly string[];
  /** Its settings, where sparehand can read (and widen) them. */
  settings?: SandboxSettings;
  /** What the user can do by hand to let sparehand offload from inside it (where sparehand cannot write it). */
  manual?: string;
}

export interface AgentSpec<P = unknown> {
  id: string;
  name: string;
  connection: ConnectionKind;
  /** Why this connection kind (one or two sentences, shown by `agent list` and docs). */
  why: string;
  /** What the connection rests on: the sources read, the real program's versions seen working, and its quirks. */
  facts: {
    sources: readonly Source[];
    /** Versions of the real program the connection was seen working in. Empty: documentation only. */
    confirmed: readonly Confirmed[];
    /** Documentation version the wire format was checked against. */
    documented?: string;
    /** What the tool does when the hook fails, times out or prints nonsense (docs/agents.md). */
    failMode?: string;
    /** Observed behaviour that differs from the documentation, each with where it was seen. */
    quirks: readonly string[];
    /**
     * The hook event names the tool's hook files may hold, as every version sparehand supports knows them (its docs or
     * source): what install writes names no other, since one unknown name can void the whole file (Cursor).
     */
    hookEvents?: readonly string[];
  };
  /** Finding the tool on this machine (`agent status`, `agent install all`). */
  program?: {
    /** Executable on PATH (for `agent status`) and how to ask its version. */
    binary?: { name: string; versionArgs: readonly string[] };
    /**
     * The tool's own folders at user level: when one exists, or `binary` is on PATH, the tool counts as used here and
     * `agent install all` installs it (the others are skipped, and can be installed by name).
     */
    folders?: (base: InstallBase) => readonly string[];
  };
  // The hook: how the tool's payload is read and answered.
  /** Shell tool names in the payload. */
  shellTools: readonly string[];
  /** How the rewritten command names sparehand: an absolute path, or the bare name on the tool's PATH. */
  sparehandName: 'absolute' | 'bare';
  /** The tool only accepts a rewrite together with an approval (so rewriting would bypass the user's rules). */
  rewriteNeedsApproval?: boolean;
  /** Environment value of SPAREHAND_AGENT_<ID> that switches a redirect tool to rewriting. */
  rewriteOptIn?: boolean;
  /** Upper bound the tool puts on a call's timeout, ms (when it carries one). */
  maxTimeoutMs?: number;
  /** The tool's timeout for a shell call that names none, ms: the rewrite then sets a raised one. */
  defaultTimeoutMs?: number;
  /** Payload shape (the hook's input; lib/agents/payload-shape.ts, not zod: it is on the hook's path), built on first use. Absent for note/none tools. */
  payload?: () => Shape<P>;
  /**
   * Tells this tool's payload by its shape (a cheap test on the parsed JSON). Several tools read the same settings
   * file (VS Code and Cursor read Claude Code's), so the hook asks every tool, and the most specific shape wins.
   */
  recognise?: (raw: Record<string, unknown>) => boolean;
  /**
   * The shape is one that other tools copy (Claude Code's): it is tried after every other tool's, so that a tool
   * file never needs to know another tool's fields to tell them apart.
   */
  fallback?: boolean;
  /** The call in a payload (any tool; the core keeps those in `shellTools`), or null when it has no command. */
  read?: (payload: P) => ShellCall | null;
  /** Puts a decision in the tool's own form; `leave` is always empty stdout + exit 0 unless overridden. */
  encode?: (answer: Exclude<HookAnswer, { kind: 'leave' }>, payload: P) => WireAnswer;
  /** Reads the user's permission rules for the original command, where the tool's rules can be read. */
  approval?: (call: ShellCall, ctx: { home: string; env: NodeJS.ProcessEnv }) => Approval;
  /** What "leave alone" prints, for a tool that wants an answer on every path (default: nothing). */
  leaveStdout?: string;
  /** A payload in the tool's own form for one shell call (`agent test` feeds it to the installed hook). */
  samplePayload?: (command: string, cwd: string) => unknown;
  /**
   * The files this tool reads the hooks sparehand installs for it from (the user's, and with `base.project` the
   * project's): the same paths as its install targets. For a tool that also runs the hooks of another tool's settings
   * (TRAE runs Claude Code's): a call of it that reaches the hook installed for that other tool is left to its own hook
   * when one is in these files, so that the call is answered once, by the entry meant for it.
   */
  hookFiles?: (base: InstallBase) => readonly string[];
  /**
   * The tool's own files in a project beyond those its install writes (settings, hooks, instructions it reads):
   * a run never changes them. Paths relative to the project root; a folder ends in `/`.
   */
  projectSettings?: readonly string[];
  /** The tool's own sandbox for shell commands, when it has one. */
  sandbox?: SandboxSpec;
  /** Installing: the files the hook goes in, the instruction notes, trust, and what the user must still do. */
  install: {
    /** The hook's files (none for a tool that cannot be connected). */
    targets: readonly InstallTarget[];
    /** Where the instruction note goes, for tools with a note. */
    notes?: readonly NoteTarget[];
    /** The tool's hooks must be trusted by hash before they run. */
    trust?: HashTrust;
    /**
     * What the user must still do after install (a trust step, a permission rule). `{sparehand}` stands for
     * sparehand as this tool's rewrites name it (node + script by absolute path, or the bare name);
     * `{sparehand-unquoted}` for the same words without shell quotes, for a tool that compares its rules with the
     * command after removing them.
     */
    afterInstall?: readonly string[];
    /** The hook inside the tool's own process, used at user level where the program here can load it. */
    inProcess?: InProcessHook;
  };
}
