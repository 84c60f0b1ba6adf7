// Claude Code's permission rules, read so a rewrite is approved exactly when the original would have been.
// Sources: code.claude.com/docs/en/permissions and settings (mirror ericbuess/claude-code-docs, 2026-08-22,
// read 2026-11-29). Rules `Bash(npm test)` (exact), `Bash(npm run test:*)` (prefix), `Bash(git * main)`
// (glob), `Bash` (every command); deny > ask > allow; files: ~/.claude/settings.json,
// <project>/.claude/settings.json, <project>/.claude/settings.local.json; CLI flags --allowedTools /
// --disallowedTools / --permission-mode / --dangerously-skip-permissions (read from the calling process).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'shell-quote';
import { isObject } from './shapes.js';
import type { Approval, ShellCall } from './types.js';
import { jsonOf } from '../read-quietly.js';

interface Rules {
  allow: string[];
  deny: string[];
  ask: string[];
}

function readRules(path: string, into: Rules): void {
  const doc = jsonOf(path);
  if (!isObject(doc) || !isObject(doc.permissions)) return;
  for (const key of ['allow', 'deny', 'ask'] as const) {
    const list = doc.permissions[key];
    if (Array.isArray(list)) for (const r of list) if (typeof r === 'string') into[key].push(r);
  }
}

/** Rule list of a CLI flag value: "Bash(npm test) Read,Edit" — commas or spaces outside parentheses. */
export function splitToolList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || ch === ' ')) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

/** Whether the hook can read its ancestors' command lines: /proc, which Linux has and a Mac has not. */
const procReadable = (env: NodeJS.ProcessEnv): boolean => env.SPAREHAND_NO_PROC !== '1' && existsSync('/proc/self/cmdline');

/** For `doctor`: what permission parity cannot see on a system without /proc (undefined where it can). */
export function ancestorFlagsNote(env: NodeJS.ProcessEnv): string | undefined {
  if (procReadable(env)) return undefined;
  return "no /proc here (a Mac): for Claude Code the hook reads the permission rules in its settings files and the payload's permission mode, not the flags Claude Code was started with (--allowedTools, --disallowedTools, --permission-mode, --dangerously-skip-permissions); put such rules in .claude/settings.json for rewrites to be approved as the original would be";
}

/** Flags of the Claude Code process that runs this hook (our ancestors), read from /proc on Linux. */
function ancestorFlags(env: NodeJS.ProcessEnv): { rules: Rules; mode?: string } {
  const rules: Rules = { allow: [], deny: [], ask: [] };
  let mode: string | undefined;
  if (!procReadable(env)) return { rules };
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth++) {
    let argv: string[];
    let stat: string;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      break;
    }
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i] as string;
      const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
      const take = (): string[] => {
        if (inline !== undefined) return splitToolList(inline);
        const vals: string[] = [];
        while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) vals.push(...splitToolList(argv[++i] as string));
        return vals;
      };
      if (flag === '--allowedTools' || flag === '--allowed-tools') rules.allow.push(...take());
      else if (flag === '--disallowedTools' || flag === '--disallowed-tools') rules.deny.push(...take());
      else if (flag === '--permission-mode') mode = inline ?? argv[++i];
      else if (flag === '--dangerously-skip-permissions') mode = 'bypassPermissions';
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isFinite(ppid)) break;
    pid = ppid;
  }
  return { rules, mode };
}

/** The simple commands of a chain (`a && b | c; d`), as Claude checks each part of a compound command. */
export function subcommands(command: string): string[] | null {
  let tokens: ReturnType<typeof parse>;
  try {
    tokens = parse(command, (name) => `$${name}`);
  } catch {
    return null;
  }
  const parts: string[][] = [[]];
  for (const t of tokens) {
    if (typeof t === 'string') (parts[parts.length - 1] as string[]).push(t);
    else if ('op' in t && ['&&', '||', ';', '|', '&', '|&'].includes(t.op)) parts.push([]);
    else if ('op' in t && (t.op === '(' || t.op === ')')) continue;
    else if ('comment' in t) continue;
    else return null; // redirects, globs, substitutions: no reliable match
  }
  return parts.filter((p) => p.length > 0).map((p) => p.join(' '));
}

const escapeRe = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Does one rule (`Bash`, `Bash(npm test)`, `Bash(npm run test:*)`, `Bash(npm *)`) cover this command? */
export function ruleMatches(rule: string, command: string): boolean {
  const r = rule.trim();
  if (r === 'Bash' || r === 'Bash(*)') return true;
  const m = /^Bash\((.*)\)$/s.exec(r);
  if (!m) return false;
  const pattern = (m[1] as string).trim();
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2);
    return command === prefix || command.startsWith(`${prefix} `);
  }
  if (pattern.includes('*')) {
    const re = new RegExp(`^${pattern.split('*').map(escapeRe).join('.*')}$`, 's');
    return re.test(command);
  }
  return command === pattern;
}

/** What the user's rules say about the original command (permission parity for the rewrite). */
export function claudeApproval(call: ShellCall, ctx: { home: string; env: NodeJS.ProcessEnv }): Approval {
  const rules: Rules = { allow: [], deny: [], ask: [] };
  const project = ctx.env.CLAUDE_PROJECT_DIR || call.cwd;
  readRules(join(ctx.home, '.claude', 'settings.json'), rules);
  if (project) {
    readRules(join(project, '.claude', 'settings.json'), rules);
    readRules(join(project, '.claude', 'settings.local.json'), rules);
  }
  const flags = ancestorFlags(ctx.env);
  rules.allow.push(...flags.rules.allow);
  rules.deny.push(...flags.rules.deny);
  const whole = call.command.trim();
  // The parts only when a rule is to be matched against them (shell-quote's parse is most of this function's time),
  // or to tell whether there are none: a command that starts with a plain word has at least one.
  let split: string[] | undefined;
  const parts = (): string[] => (split ??= subcommands(whole) ?? [whole]);
  const noParts = (): boolean => !/^[\w./-]/.test(whole) && parts().length === 0;
  const any = (list: string[]) => list.some((r) => ruleMatches(r, whole) || parts().some((p) => ruleMatches(r, p)));
  if (any(rules.deny)) return 'deny';
  if (any(rules.ask)) return 'ask';
  const mode = flags.mode ?? call.permissionMode;
  if (mode === 'bypassPermissions') return 'allow';
  const all = (list: string[]) =>
    list.length === 0 ? noParts() : list.some((r) => ruleMatches(r, whole)) || parts().every((p) => list.some((r) => ruleMatches(r, p)));
  return all(rules.allow) ? 'allow' : 'unknown';
}
