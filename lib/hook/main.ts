// The hook's hot path: stdin → off switches → does the payload name any program that could be heavy? Most
// calls end here, without loading the classifier, the registry or zod (docs/performance.md); the rest goes to
// ./answer.js. The one place that fails open.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WireAnswer } from '../agents/types.js';
import type { RuleChanges } from '../classify/types.js';
import { mayNameHeavy, ruleWords } from '../classify/vocabulary.js';
import type { Context } from '../context.js';
import { readConfigText } from '../config-file.js';
import { cacheDir, configPath } from '../paths.js';
import { requireWithCodeCache } from '../code-cache.js';
import { logLine, readPayload, writeOut } from './io.js';

/** Per tool, what "leave alone" prints; set at build time from the registry (scripts/build.js). */
declare const __SPAREHAND_LEAVE__: Record<string, string> | undefined;

async function leaveText(agent: string): Promise<string> {
  if (typeof __SPAREHAND_LEAVE__ !== 'undefined') return __SPAREHAND_LEAVE__[agent] ?? '';
  const { AGENTS, isAgentId } = await import('../agents/index.js');
  return isAgentId(agent) ? (AGENTS[agent].leaveStdout ?? '') : '';
}

/** The config's rule changes, read without validation: only used to rule commands out early. */
function rawRules(ctx: Pick<Context, 'home' | 'env'>): RuleChanges {
  try {
    const doc = JSON.parse(readConfigText(configPath(ctx)) ?? '{}') as { rules?: unknown };
    const r = doc?.rules as Record<string, unknown> | undefined;
    const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    return r && typeof r === 'object' ? { heavy: list(r.heavy), local: list(r.local) } : {};
  } catch {
    return {};
  }
}

/** True when some string in the payload (the command among them) names a program that could make it heavy. */
export function mayBeHeavy(value: unknown, words: ReadonlySet<string>, depth = 0): boolean {
  if (typeof value === 'string') return mayNameHeavy(value, words);
  if (depth > 5 || typeof value !== 'object' || value === null) return false;
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.some((v) => mayBeHeavy(v, words, depth + 1));
}

/** The answer for one payload text. Throws only on internal errors. */
export async function answerText(ctx: Context, agent: string, text: string): Promise<WireAnswer> {
  const leave = async (): Promise<WireAnswer> => ({ stdout: await leaveText(agent), stderr: '', exitCode: 0 });
  if (ctx.env.SPAREHAND === 'off' || ctx.env.SPAREHAND_RUN === '1') return leave();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    logLine(ctx, `${agent}: payload is not JSON (${text.length} bytes): left alone`);
    return leave();
  }
  if (!mayBeHeavy(raw, ruleWords(rawRules(ctx).heavy))) return leave();
  // In the bundle the full path is a CommonJS file beside it, loaded with V8's code cache (no ES module loader).
  const { answerFor } = (
    typeof __SPAREHAND_LEAVE__ !== 'undefined'
      ? requireWithCodeCache(join(dirname(fileURLToPath(import.meta.url)), 'hook-answer.bundle.cjs'), join(cacheDir(ctx), 'v8'))
      : await import('./answer.js')
  ) as typeof import('./answer.js');
  return answerFor(ctx, agent, text);
}

/** Runs the hook on ctx's stdin; returns the exit status. Any failure: nothing on stdout, exit 0, a log line. */
export async function hookMain(ctx: Context, agent: string): Promise<number> {
  let answer: WireAnswer;
  try {
    const text = await readPayload(ctx);
    answer = text === null ? { stdout: await leaveText(agent), stderr: '', exitCode: 0 } : await answerText(ctx, agent, text);
  } catch (e) {
    logLine(ctx, `${agent}: internal error, left alone: ${(e as Error)?.stack ?? String(e)}`);
    answer = { stdout: '', stderr: '', exitCode: 0 };
  }
  writeOut(ctx, 'stdout', answer.stdout);
  writeOut(ctx, 'stderr', answer.stderr);
  return answer.exitCode;
}
