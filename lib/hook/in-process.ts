// The hook run inside the tool's own process (a tool's plugin, or its mod): the steps of the hook process for one
// call, with the tool's own spec (so the registry is not loaded): the off switches, "could anything
// in it be heavy?" (./main.ts), then the caller's own steps (./answer-as.ts). The answer is the one the hook process
// would print for the same payload, byte for byte, and no process is started. The one place these hooks fail open,
// and log why.
import type { HookSpec, WireAnswer } from '../agents/types.js';
import { ruleWords } from '../classify/vocabulary.js';
import { answerAs, leaveFor } from './answer-as.js';
import type { DecideContext } from './decide.js';
import { switchedOff } from './entry-check.js';
import { logLine } from './io.js';
import { mayBeHeavy, rawRules } from './main.js';

/** Whether the call may need an answer at all: hooks on, and some string in it names a program that could be heavy. */
export const mayAnswer = (raw: Record<string, unknown>, ctx: DecideContext): boolean =>
  !switchedOff(ctx.env) && mayBeHeavy(raw, ruleWords(rawRules(ctx).heavy));

/**
 * How each step runs: as it is (node's fs), or again until it has read everything it asks for, where what it reads is
 * lent by the tool (./read-ahead.ts). `kind` names the step, so that what it read can be read ahead the next time.
 */
export type StepRunner = <T>(kind: string, step: () => T | Promise<T>) => Promise<T>;

const asItIs: StepRunner = async (_kind, step) => step();

/** `spec`'s answer to its payload `raw`, as the hook process gives it; any failure: left alone, and a line in the log. */
export async function answerInProcess(spec: HookSpec, raw: Record<string, unknown>, ctx: DecideContext, run: StepRunner = asItIs): Promise<WireAnswer> {
  try {
    if (!(await run('light', () => mayAnswer(raw, ctx)))) return leaveFor(spec);
    return await run('answer', () => answerAs(spec, raw, ctx));
  } catch (e) {
    const line = `${spec.id}: internal error in the tool's own process, left alone: ${(e as Error)?.stack ?? String(e)}`;
    await run('log', () => logLine(ctx, line)).catch(() => undefined);
    return leaveFor(spec);
  }
}
