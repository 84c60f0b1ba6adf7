// The hook's full path, loaded only for payloads that may hold a heavy command: which tool is calling, then its
// payload (its shape, checked by hand: lib/agents/payload-shape.ts), decide, the caller's answer (./answer-as.ts). No
// zod unless the config must be checked (lib/config-checked.ts). lib/hook/main.ts is the hot path in front of it and
// the one place that fails open (and logs); nothing here catches an error of its own.
import { AGENTS, allAgents, isAgentId } from '../agents/index.js';
import type { HookSpec, WireAnswer } from '../agents/types.js';
import { answerAs, leaveFor } from './answer-as.js';
import type { DecideContext } from './decide.js';
import { entryCheck } from './entry-check.js';
import { logLine } from './io.js';
import { ownHookInstalled } from './own-hook.js';

export { leaveFor };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The caller of a payload: of the tools whose shape fits, the most specific (a shape other tools copy, marked
 * `fallback`, comes last), the named one first among equals. Several tools read the same settings file
 * (docs/real-programs.md "One hook, many callers"), so the hook installed for one may be called by another.
 */
export function callerOf(named: HookSpec, raw: Record<string, unknown>): HookSpec | undefined {
  const fits = (a: HookSpec): boolean => {
    try {
      return a.recognise?.(raw) === true;
    } catch {
      return false; // a shape test that trips on odd input ({"toString": 0}) is a "no"
    }
  };
  const order = [named, ...allAgents().filter((a) => a !== named)];
  return order.find((a) => !a.fallback && fits(a)) ?? order.find((a) => a.fallback === true && fits(a));
}

/** The answer for a payload that passed the entry check (lib/hook/entry-check.ts); throws only on internal errors. */
export async function answerPayload(ctx: DecideContext, agent: string, raw: unknown): Promise<WireAnswer> {
  const named = isAgentId(agent) ? AGENTS[agent] : undefined;
  if (!named) {
    logLine(ctx, `unknown tool "${agent}": left alone`);
    return leaveFor(undefined);
  }
  if (!isObject(raw)) return leaveFor(named);
  const caller = callerOf(named, raw);
  if (!caller?.payload || !caller.read || !caller.encode) return leaveFor(named);
  // A call of another tool's (one that also runs this tool's hooks) is left to the entry installed for it, if any.
  return answerAs(caller, raw, ctx, (call) => {
    if (caller === named || !ownHookInstalled(ctx, caller, call.cwd)) return false;
    logLine(ctx, `${named.id}: a call of ${caller.id}'s, left to the hook installed for ${caller.id}`);
    return true;
  });
}

/** The whole answer for one payload text, as the hook process gives it (tests and docs use it); throws only on internal errors. */
export async function answerFor(ctx: DecideContext, agent: string, text: string): Promise<WireAnswer> {
  const entry = entryCheck(ctx, agent, text);
  return entry ? await answerPayload(ctx, agent, entry.raw) : leaveFor(isAgentId(agent) ? AGENTS[agent] : undefined);
}
