// Before any real-CLI test: the set-up must have run and installed at least one CLI. Every test skips a tool that
// is not installed, so without this check a run whose set-up did nothing (a wrong path, no network) would pass
// having tested nothing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { e2eCache } from './harness.js';

/** What the set-up recorded for each tool in the cache: installed, or why not. */
function statuses(cache: string): { tool: string; ok: boolean; reason?: string }[] {
  if (!existsSync(cache)) return [];
  return readdirSync(cache)
    .filter((tool) => existsSync(join(cache, tool, 'e2e-status.json')))
    .map((tool) => ({ tool, ...(JSON.parse(readFileSync(join(cache, tool, 'e2e-status.json'), 'utf8')) as { ok: boolean; reason?: string }) }));
}

/** Vitest's global set-up: throws (so the run fails) when no coding-tool CLI is there to test. */
export default function assertSomethingToTest(): void {
  const cache = e2eCache();
  const found = statuses(cache);
  if (found.length === 0) {
    throw new Error(`e2e: no coding-tool CLI set up in ${cache}; the set-up did not run (npm run e2e:setup), so nothing would be tested`);
  }
  if (!found.some((s) => s.ok)) {
    const why = found.map((s) => `${s.tool}: ${s.reason ?? 'not installed'}`).join('\n  ');
    throw new Error(`e2e: none of the coding-tool CLIs in ${cache} could be installed, so nothing would be tested:\n  ${why}`);
  }
}
