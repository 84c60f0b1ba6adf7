// The agent-neutral decision: leave, rewrite or refuse one shell call. Never names a tool; reads the spec.
import { agentEnvVar } from '../agents/env-var.js';
import type { HookAnswer, HookSpec, ShellCall } from '../agents/types.js';
import { classify, rewriteCommand } from '../classify/index.js';
import { loadCheckedConfigOrKept } from '../config-checked.js';
import { platformFacts } from '../remote/worker-facts.js';
import type { Context } from '../context.js';
import { type Self, self, sparehandInvocation } from '../self.js';
import { MAX_TIMER_MS } from '../timers.js';
import { which } from '../which.js';
import { logLine } from './io.js';
import { seenBefore } from './redirects.js';
import { depthInProject } from '../project-root.js';
import { splitWanted } from '../split/wanted.js';

const FIVE_MINUTES = 5 * 60_000;
const TEN_MINUTES = 10 * 60_000;

export type DecideContext = Pick<Context, 'home' | 'env' | 'cwd'> & { self?: Self };

/** Raised by up to 5 minutes, never above 10 minutes (or the tool's own maximum), never lowered. */
export function raiseTimeout(ms: number | undefined, max = TEN_MINUTES): number | undefined {
  if (ms === undefined) return undefined;
  return Math.max(ms, Math.min(ms + FIVE_MINUTES, max, TEN_MINUTES));
}

/**
 * The limit a call names, as the tool holds it: at most the tool's own maximum (a tool cuts a longer one to it), and
 * at most what a timer holds (MAX_TIMER_MS) where the tool has none; a limit that is not a positive number is none.
 */
export function toolLimit(ms: number | undefined, max: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.min(ms, max ?? MAX_TIMER_MS);
}

/**
 * The time a rewritten run has, in whole seconds: the tool's limit on the call less a margin (a twentieth, at least
 * 10 s), so that sparehand ends the run with its output and a reason before the tool kills it (docs/run.md "Time
 * bounds"). Undefined when the tool puts no limit on the call.
 */
export function runTimeoutSeconds(toolTimeoutMs: number | undefined): number | undefined {
  if (toolTimeoutMs === undefined || !(toolTimeoutMs > 0)) return undefined;
  return Math.max(10, Math.floor((toolTimeoutMs - Math.max(10_000, toolTimeoutMs / 20)) / 1000));
}

/** How the rewrite names sparehand for this tool, or null when it cannot (bare name not on PATH). */
export function invocationFor(spec: HookSpec, ctx: DecideContext): string | null {
  if (spec.sparehandName === 'bare' && which('sparehand', ctx.env.PATH) === undefined) return null;
  return sparehandInvocation(spec.sparehandName, ctx.self ?? self());
}

/** The connection in effect: the tool's own, or rewrite where the user opted in (SPAREHAND_AGENT_<ID>=rewrite). */
export function effectiveConnection(spec: HookSpec, env: NodeJS.ProcessEnv): HookSpec['connection'] {
  if (spec.rewriteOptIn && env[agentEnvVar(spec.id)] === 'rewrite') return 'rewrite';
  return spec.connection;
}

export const refusalReason = (replacement: string): string =>
  `This command is heavy: sparehand runs it on a spare machine (or here when none is free). Run this instead: ${replacement}`;

export async function decide(spec: HookSpec, call: ShellCall, ctx: DecideContext): Promise<HookAnswer> {
  const leave: HookAnswer = { kind: 'leave' };
  const connection = effectiveConnection(spec, ctx.env);
  if (connection !== 'rewrite' && connection !== 'redirect') return leave;
  // A broken config file does not turn the hooks off: the last good one (or the defaults), and a line in the log.
  const config = await loadCheckedConfigOrKept(ctx, (line) => logLine(ctx, `${spec.id}: ${line}`));
  // What the workers are (recorded by `worker add`, `worker check` and runs): a chain that runs what it builds stays whole.
  const depth = depthInProject(call.cwd ?? ctx.cwd);
  const c = classify(call.command, config.rules ?? {}, { ...platformFacts(ctx, config.workers ?? []), depth });
  if (!c.heavy) return leave;
  const invocation = invocationFor(spec, ctx);
  if (invocation === null) return leave;
  const approval = spec.approval?.(call, ctx) ?? 'unknown';
  if (approval === 'deny') return leave;
  // The test commands that can shard themselves go as `--split auto` where the user's config asks for it.
  const splits = splitWanted(ctx, config, call.cwd ?? ctx.cwd);
  if (connection === 'rewrite') {
    // A background call's timeout is its own or none: the default is not the limit it runs under.
    const timeoutMs = raiseTimeout(toolLimit(call.timeoutMs, spec.maxTimeoutMs) ?? (call.background ? undefined : spec.defaultTimeoutMs), spec.maxTimeoutMs);
    return {
      kind: 'rewrite',
      // The run keeps inside the tool's limit: it ends with output and a reason before the tool would kill it.
      command: rewriteCommand(c, invocation, runTimeoutSeconds(timeoutMs), splits),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      approve: spec.rewriteNeedsApproval === true || approval === 'allow',
    };
  }
  if (seenBefore(ctx, spec.id, call.sessionId ?? call.cwd ?? ctx.cwd, call.command)) return leave;
  // (A refusal names a command the model runs later, under whatever limit that call has: no bound of this one's.)
  const replacement = rewriteCommand(c, invocation, undefined, splits);
  return { kind: 'refuse', reason: refusalReason(replacement), replacement };
}
