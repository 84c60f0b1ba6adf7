// The hook: stdin → the caller's payload → decide → the caller's answer. Fails open in this one place.
import { AGENTS, agentEnvVar, allAgents, isAgentId } from '../agents/index.js';
import type { AgentSpec, WireAnswer } from '../agents/types.js';
import type { Context } from '../context.js';
import { decide, type DecideContext } from './decide.js';
import { logLine, readPayload } from './io.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const leaveFor = (spec: AgentSpec<unknown> | undefined): WireAnswer => ({
  stdout: spec?.leaveStdout ?? '',
  stderr: '',
  exitCode: 0,
});

/**
 * The caller of a payload: the named tool when its shape fits, else any other tool whose shape fits (several
 * tools read the same settings file: VS Code and Cursor read Claude Code's).
 */
export function callerOf(named: AgentSpec<unknown>, raw: Record<string, unknown>): AgentSpec<unknown> | undefined {
  if (named.recognise?.(raw)) return named;
  return allAgents().find((a) => a !== named && a.recognise?.(raw));
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
  const parsed = caller.payload.safeParse(raw);
  if (!parsed.success) {
    logLine(ctx, `${caller.id}: payload does not fit its schema: left alone`);
    return leaveFor(caller);
  }
  const call = caller.read(parsed.data);
  if (!call) return leaveFor(caller);
  const answer = decide(caller, call, ctx);
  return answer.kind === 'leave' ? leaveFor(caller) : caller.encode(answer, parsed.data);
}

/** Runs the hook on ctx's stdin; returns the exit status. Any failure: nothing on stdout, exit 0, a log line. */
export async function hookMain(ctx: Context, agent: string): Promise<number> {
  let answer: WireAnswer;
  try {
    const text = await readPayload(ctx.stdin);
    answer = text === null ? leaveFor(isAgentId(agent) ? AGENTS[agent] : undefined) : answerFor(ctx, agent, text);
  } catch (e) {
    logLine(ctx, `${agent}: internal error, left alone: ${(e as Error)?.stack ?? String(e)}`);
    answer = leaveFor(isAgentId(agent) ? AGENTS[agent] : undefined);
  }
  if (answer.stdout) ctx.stdout.write(answer.stdout);
  if (answer.stderr) ctx.stderr.write(answer.stderr);
  return answer.exitCode;
}
