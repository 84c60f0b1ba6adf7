// The one check at the hook's entry, before anything else is loaded: the off switches, then the payload as JSON.
import type { Context } from '../context.js';
import { logLine } from './io.js';

/** Every hook is off (`SPAREHAND=off`), or this call comes from inside a run (`SPAREHAND_RUN=1`). */
export const switchedOff = (env: NodeJS.ProcessEnv): boolean => env.SPAREHAND === 'off' || env.SPAREHAND_RUN === '1';

/** The payload, parsed; undefined when the hook must leave everything alone (switched off, or not JSON: logged). */
export function entryCheck(ctx: Pick<Context, 'home' | 'env'>, agent: string, text: string): { raw: unknown } | undefined {
  if (switchedOff(ctx.env)) return undefined;
  try {
    return { raw: JSON.parse(text) };
  } catch {
    logLine(ctx, `${agent}: payload is not JSON (${text.length} bytes): left alone`);
    return undefined;
  }
}
