// The hook's hot path: stdin → the entry check (off switches, JSON) → does the payload name any program that could be
// heavy? Most calls end here, without loading the classifier, the registry or zod (docs/performance.md); the rest
// goes to the full path (./answer.ts), which the caller passes in: a bundle beside this one, or the module itself.
// The one place that fails open, and logs why.
import type { WireAnswer } from '../agents/types.js';
import type { RuleChanges } from '../classify/types.js';
import { mayNameHeavy, ruleWords } from '../classify/vocabulary.js';
import { readConfigText } from '../config-file.js';
import { keptConfigText } from '../config-kept.js';
import type { Context } from '../context.js';
import { configPath } from '../paths.js';
import { entryCheck } from './entry-check.js';
import { logLine, readPayload, writeOut } from './io.js';

/** What the caller gives the hot path: the full path, loaded only when needed, and what "leave alone" prints. */
export interface HookPaths {
  full: () => Promise<Pick<typeof import('./answer.js'), 'answerPayload'>> | Pick<typeof import('./answer.js'), 'answerPayload'>;
  /** The tool's "leave alone" text (most tools: nothing), known without loading the registry. */
  leave: (agent: string) => string;
}

/** The tool's "leave alone" text, or nothing should even that lookup fail. */
function leaveText(paths: HookPaths, agent: string): string {
  try {
    return paths.leave(agent);
  } catch {
    return '';
  }
}

/** The config's rule changes, read without validation: only used to rule commands out early. */
export function rawRules(ctx: Pick<Context, 'home' | 'env'>): RuleChanges {
  try {
    const path = configPath(ctx);
    const text = readConfigText(path) ?? '{}';
    let doc: { rules?: unknown };
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch {
      // A broken file: the rules of the last one that parsed, as the full path uses (lib/config-kept.ts).
      doc = JSON.parse(keptConfigText(ctx, path)?.text ?? '{}') as typeof doc;
    }
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

/**
 * Runs the hook on ctx's stdin; returns the exit status. Any failure: the tool's "leave alone" answer (most tools:
 * nothing; a tool that blocks a call it gets no answer for: its own neutral answer), exit 0, a log line.
 */
export async function hookMain(ctx: Context, agent: string, paths: HookPaths): Promise<number> {
  let answer: WireAnswer;
  try {
    const text = await readPayload(ctx);
    const entry = text === null ? undefined : entryCheck(ctx, agent, text);
    answer =
      entry && mayBeHeavy(entry.raw, ruleWords(rawRules(ctx).heavy))
        ? await (await paths.full()).answerPayload(ctx, agent, entry.raw)
        : { stdout: paths.leave(agent), stderr: '', exitCode: 0 };
  } catch (e) {
    logLine(ctx, `${agent}: internal error, left alone: ${(e as Error)?.stack ?? String(e)}`);
    answer = { stdout: leaveText(paths, agent), stderr: '', exitCode: 0 };
  }
  writeOut(ctx, 'stdout', answer.stdout);
  writeOut(ctx, 'stderr', answer.stderr);
  return answer.exitCode;
}
