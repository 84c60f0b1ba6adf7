// The hook's full path, loaded only for payloads that may hold a heavy command: the caller's payload (zod),
// decide, the caller's answer. lib/hook/main.ts is the hot path in front of it and the one place that fails open.
import { AGENTS, agentEnvVar, allAgents, isAgentId } from '../agents/index.js';
import type { AgentSpec, WireAnswer } from '../agents/types.js';
import type { Context } from '../context.js';
import { decide, type DecideContext } from './decide.js';
import { logLine } from './io.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const leaveFor = (spec: AgentSpec<unknown> | undefined): WireAnswer => ({
  stdout: spec?.leaveStdout ?? '',
  stderr: '',
  exitCode: 0,
});

/**
 * The caller of a payload: the named tool when its shape fits, else any other tool whose shape fits (several
 * tools read the same settings file, see docs/real-programs.md "One hook, many callers").
 */
export function callerOf(named: AgentSpec<unknown>, raw: Record<string, unknown>): AgentSpec<unknown> | undefined {
  const fits = (a: AgentSpec<unknown>): boolean => {
    try {
      return a.recognise?.(raw) === true;
    } catch {
      return false; // a shape test that trips on odd input ({"toString": 0}) is a "no"
    }
  };
  return fits(named) ? named : allAgents().find((a) => a !== named && fits(a));
}

/** The whole answer for one payload text; throws only on internal errors (the caller fails open). */
export function answerFor(ctx: DecideContext, agent: string, text: string): WireAnswer {
  const named = isAgentId(agent) ? AGENTS[agent] : undefined;
  if (!named) {
    logLine(ctx, `unknown tool "${agent}": left alone`);
    return leaveFor(undefined);
  }
  if (ctx.env.SPAREHAND === 'off' || ctx.env.SPAREHAND_RUN === '1') return leaveFor(named);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    logLine(ctx, `${agent}: payload is not JSON (${text.length} bytes): left alone`);
    return leaveFor(named);
  }
  if (!isObject(raw)) return leaveFor(named);
  const caller = callerOf(named, raw);
  if (!caller?.payload || !caller.read || !caller.encode) return leaveFor(named);
  if (ctx.env[agentEnvVar(caller.id)] === 'off') return leaveFor(caller);
  const parsed = caller.payload().safeParse(raw);
  if (!parsed.success) {
    logLine(ctx, `${caller.id}: payload does not fit its schema: left alone`);
    return leaveFor(caller);
  }
  const call = caller.read(parsed.data);
  if (!call) return leaveFor(caller);
  const answer = decide(caller, call, ctx);
  return answer.kind === 'leave' ? leaveFor(caller) : caller.encode(answer, parsed.data);
}
