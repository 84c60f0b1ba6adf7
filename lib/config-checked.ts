// The config as the hook takes it: what the last check found, when the file holds the very text checked then by this
// build's schema (kept by lib/config-kept.ts); else checked now by lib/config.ts, whose zod is loaded only then. zod
// and the schema cost the hook's heavy path more than the rest of it (docs/performance.md).
import { readConfigText, unknownFieldsLine } from './config-file.js';
import { keptConfigText } from './config-kept.js';
import { configSchemaId } from './config-schema-id.js';
import type { Config } from './config.js';
import type { Context } from './context.js';
import { configPath } from './paths.js';

/** As lib/config.ts's loadConfigOrKept (the same config, the same lines to `warn`), checking only a text not checked before. */
export async function loadCheckedConfigOrKept(c: Pick<Context, 'home' | 'env'>, warn: (line: string) => void): Promise<Config> {
  const path = configPath(c);
  const by = configSchemaId();
  let text: string | undefined;
  try {
    text = readConfigText(path);
  } catch {
    // An unreadable file: lib/config.ts says why and goes on with the kept config.
    return (await import('./config.js')).loadConfigOrKept(c, warn);
  }
  if (text === undefined) return {};
  const kept = by === undefined ? undefined : keptConfigText(c, path);
  const checked = kept?.text === text ? kept.checked : undefined;
  if (checked !== undefined && checked.by === by) {
    if (checked.unknown.length > 0) warn(unknownFieldsLine(path, checked.unknown));
    return checked.config as Config;
  }
  return (await import('./config.js')).loadConfigOrKept(c, warn);
}
