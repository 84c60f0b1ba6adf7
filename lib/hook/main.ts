// Placeholder until the hook lands: leaves every command alone.
import type { Context } from '../context.js';

export async function hookMain(_ctx: Context, _agent: string): Promise<number> {
  return 0;
}
