// The hook's steps once its caller is known: the caller's off switch, its payload's shape, the shell call in it, the
// decision, the answer in the caller's form. The hook process comes here through ./answer.ts (which tells the caller
// among every tool); a tool's in-process hook (./in-process.ts) comes straight here with its own spec, without
// loading the registry. Nothing here catches an error of its own.
import { agentEnvVar } from '../agents/env-var.js';
import type { HookSpec, ShellCall, WireAnswer } from '../agents/types.js';
import { decide, type DecideContext } from './decide.js';
import { logLine } from './io.js';

export const leaveFor = (spec: HookSpec | undefined): WireAnswer => ({
  stdout: spec?.leaveStdout ?? '',
  stderr: '',
  exitCode: 0,
});

/**
 * The answer of `caller` for its payload `raw` (an object); `leave`: whether this entry leaves the call alone once its
 * shell call is known (the hook process: another entry of sparehand's is the one meant for it, ./own-hook.ts). Throws
 * only on internal errors.
 */
export async function answerAs(caller: HookSpec, raw: Record<string, unknown>, ctx: DecideContext, leave?: (call: ShellCall) => boolean): Promise<WireAnswer> {
  if (!caller.payload || !caller.read || !caller.encode) return leaveFor(caller);
  if (ctx.env[agentEnvVar(caller.id)] === 'off') return leaveFor(caller);
  const parsed = caller.payload().safeParse(raw);
  if (!parsed.success) {
    logLine(ctx, `${caller.id}: payload does not fit its schema: left alone`);
    return leaveFor(caller);
  }
  const call = caller.read(parsed.data);
  if (!call || !caller.shellTools.includes(call.tool)) return leaveFor(caller);
  if (leave?.(call)) return leaveFor(caller);
  const answer = await decide(caller, call, ctx);
  return answer.kind === 'leave' ? leaveFor(caller) : caller.encode(answer, parsed.data);
}
