// The fake model's behaviour, independent of the wire protocol: ask for one heavy shell command through the
// tool's own shell tool, follow a refusal that names a `sparehand run …` replacement (as a model follows a
// redirect), then finish with a text message. Protocol adapters (protocols.ts) translate to and from this.

/** A function the coding tool offered the model: its name and JSON schema (types lower-cased). */
export interface ToolDecl {
  name: string;
  schema: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
}

/** A tool call the model made earlier in the conversation, as the tool sent the history back. */
export interface PastCall {
  id: string;
  name: string;
  args: unknown;
}

/** A tool result the coding tool sent back to the model. */
export interface ToolResult {
  id: string;
  text: string;
}

/** The conversation a request carries, in neutral form. */
export interface Conversation {
  tools: ToolDecl[];
  calls: PastCall[];
  results: ToolResult[];
  /** The instructions the tool gave the model (system prompt, rules, guidelines), where the protocol has them. */
  instructions?: string;
}

export type Reply = { kind: 'call'; tool: string; args: Record<string, unknown> } | { kind: 'text'; text: string };

// Shell tools by name, most specific first: Claude Code, OpenCode/Copilot/Kilo, Gemini/Qwen, droid, Cline, Codex,
// Auggie.
const SHELL_TOOLS = ['Bash', 'bash', 'run_shell_command', 'Execute', 'run_commands', 'shell_command', 'exec_command', 'shell', 'launch-process'];

/** The shell tool among those offered, or undefined (side requests: titles, summaries, checks). */
export function pickShellTool(tools: readonly ToolDecl[]): ToolDecl | undefined {
  for (const name of SHELL_TOOLS) {
    const tool = tools.find((t) => t.name === name);
    if (tool) return tool;
  }
  return undefined;
}

function typeOf(schema: JsonSchema | undefined): string {
  const t = schema?.type;
  return (Array.isArray(t) ? (t.find((x) => x !== 'null') ?? '') : (t ?? '')).toLowerCase();
}

/** Arguments for the shell tool that run `command`, filled from the tool's own schema. */
export function shellArgs(tool: ToolDecl, command: string): Record<string, unknown> {
  const props = tool.schema.properties ?? {};
  const required = new Set(tool.schema.required ?? []);
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(props)) {
    const type = typeOf(prop);
    if (name === 'command' || name === 'cmd') {
      args[name] = type === 'array' ? ['bash', '-lc', command] : command;
    } else if (name === 'commands') {
      args[name] = [command];
    } else if (prop.enum && prop.enum.length > 0 && required.has(name)) {
      args[name] = prop.enum[0];
    } else if (type === 'string' && required.has(name) && /^(cwd|dir|directory|workdir|working_dir)$/.test(name)) {
      args[name] = '.';
    } else if (type === 'string' && (required.has(name) || name === 'description')) {
      args[name] = 'Run the project tests';
    } else if (type === 'boolean' && required.has(name)) {
      // Wait for the command (Auggie's launch-process `wait`); anything else off.
      args[name] = name === 'wait';
    } else if ((type === 'number' || type === 'integer') && required.has(name)) {
      // A required number is a time limit (Auggie's `max_wait_seconds`): a minute.
      args[name] = 60;
    }
  }
  if (!('command' in args) && !('cmd' in args) && !('commands' in args)) args.command = command;
  return args;
}

/** The command string a shell-tool call asked for (string, argv or list). */
export function commandOf(args: unknown): string | undefined {
  if (typeof args === 'string') {
    try {
      return commandOf(JSON.parse(args));
    } catch {
      return undefined;
    }
  }
  if (!args || typeof args !== 'object') return undefined;
  const a = args as Record<string, unknown>;
  const value = a.command ?? a.cmd ?? a.commands;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0) {
    const last = value[value.length - 1];
    return typeof last === 'string' ? last : undefined;
  }
  return undefined;
}

/** The `sparehand run …` command a refusal names, or undefined when it names none. */
export function replacementIn(text: string): string | undefined {
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const inner = m[1]!.trim();
    if (/sparehand(\.js)?'?\s+run\b/.test(inner)) return inner;
  }
  const m = text.match(
    /((?:'[^'\n]*node'|\S*node)\s+)?('[^'\n]*sparehand(?:\.js)?'|[^\s'"`]*sparehand(?:\.js)?)\s+run\s+(?:--?[\w-]+(?:=\S+)?\s+)*--\s+('(?:[^'\n]|'\\'')*'|"(?:[^"\\\n]|\\.)*"|\S+)/,
  );
  return m ? m[0] : undefined;
}

/** How the model plays: the first command, what it does with a refusal, and at most how many shell calls. */
export interface Play {
  command: string;
  /** `follow`: run the replacement a refusal names; `repeat`: send the original command again. */
  onRefusal: 'follow' | 'repeat';
  maxCalls: number;
  /** Run the command as sparehand's note in the instructions says (`<sparehand> run --or-local -- '<command>'`), as a model that follows its instructions does. */
  followNotes?: boolean;
}

/** The command as sparehand's note in `instructions` asks to run it, or undefined when there is no note. */
export function asNoteSays(instructions: string | undefined, command: string): string | undefined {
  const m = /^(.*\bsparehand(?:\.js)?\b.*) run --or-local -- '<command>'$/m.exec(instructions ?? '');
  return m ? `${m[1]!.trim()} run --or-local -- '${command.replace(/'/g, "'\\''")}'` : undefined;
}

/** What the model says next, given the whole conversation so far. */
export function nextReply(conv: Conversation, play: Play): Reply {
  const shell = pickShellTool(conv.tools);
  if (!shell) return { kind: 'text', text: 'OK.' };
  if (conv.calls.length === 0) {
    const first = (play.followNotes ? asNoteSays(conv.instructions, play.command) : undefined) ?? play.command;
    return { kind: 'call', tool: shell.name, args: shellArgs(shell, first) };
  }
  const last = conv.results[conv.results.length - 1];
  if (!last || last.text.includes('SPAREHAND_RUN=1')) return { kind: 'text', text: 'Done: the tests ran.' };
  const replacement = replacementIn(last.text);
  if (!replacement || conv.calls.length >= play.maxCalls) return { kind: 'text', text: 'Finished.' };
  const asked = conv.calls.map((c) => commandOf(c.args));
  const next = play.onRefusal === 'follow' ? replacement : play.command;
  if (play.onRefusal === 'follow' && asked.includes(next)) return { kind: 'text', text: 'Finished.' };
  if (play.onRefusal === 'repeat' && asked.length >= 2) return { kind: 'text', text: 'Finished.' };
  return { kind: 'call', tool: shell.name, args: shellArgs(shell, next) };
}
