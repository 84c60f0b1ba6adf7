// The user's config file: workers, heavy-command rule changes, sync and env choices. Validated, written atomically.
import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import type { Context } from './context.js';
import { SparehandError } from './errors.js';
import { writeFileAtomically } from './fs-atomic.js';
import { configPath } from './paths.js';

export const WorkerSchema = z.object({
  name: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only')),
  /** What ssh is given: `host`, `user@host`, or an alias from ~/.ssh/config. */
  destination: z.string().check(z.minLength(1), z.regex(/^[^-\s]/, 'must not start with "-" or a space')),
  port: z.optional(z.number().check(z.int(), z.gte(1), z.lte(65535))),
  identity: z.optional(z.string()),
  /** Folder on the worker holding the project copies (default `~/.cache/sparehand/work`). */
  dir: z.optional(z.string()),
  slots: z.optional(z.number().check(z.int(), z.gte(1), z.lte(256))),
});
export type Worker = z.infer<typeof WorkerSchema>;

export const ConfigSchema = z.object({
  workers: z.optional(z.array(WorkerSchema)),
  /** Changes to the heavy-command rules: each entry is a command prefix, e.g. "npm run e2e". */
  rules: z.optional(
    z.object({
      heavy: z.optional(z.array(z.string())),
      local: z.optional(z.array(z.string())),
    }),
  ),
  /** Extra environment variable names forwarded to the worker. */
  env: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')))),
  sync: z.optional(
    z.object({
      /** Extra rsync exclude patterns. */
      exclude: z.optional(z.array(z.string())),
      /** Send files that look like secrets (`.env*`, keys). Off by default. */
      sendSecrets: z.optional(z.boolean()),
      /** Copy dependency folders (node_modules…) instead of installing them on the worker. */
      copyDependencies: z.optional(z.boolean()),
      /** Extra patterns of build caches that stay on the worker: never brought back. */
      keepOnWorker: z.optional(z.array(z.string())),
    }),
  ),
});
export type Config = z.infer<typeof ConfigSchema>;

type Env = Pick<Context, 'home' | 'env'>;

/** Validation problems as one line naming each field (`workers.0.port: …`); `top` names the whole value. */
export function issuesText(issues: readonly { path: readonly PropertyKey[]; message: string }[], top: string): string {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : top}: ${i.message}`).join('; ');
}

/** Reads the config; a missing file is an empty config, a bad one an error naming the file and the field. */
export function loadConfig(c: Env): Config {
  const path = configPath(c);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SparehandError('CONFIG', `cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new SparehandError('CONFIG', `${path} is not valid JSON: ${(e as Error).message}`, {
      hint: 'fix the file by hand, or move it away to start from an empty config',
      cause: e,
    });
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SparehandError('CONFIG', `${path}: ${issuesText(parsed.error.issues, '(top level)')}`, {
      hint: 'see docs/config.md for the fields',
    });
  }
  return parsed.data;
}

export async function saveConfig(c: Env, config: Config): Promise<void> {
  const checked = ConfigSchema.parse(config);
  await writeFileAtomically(configPath(c), `${JSON.stringify(checked, null, 2)}\n`);
}
