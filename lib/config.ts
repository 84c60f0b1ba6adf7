// The user's config file: workers, heavy-command rule changes, sync and env choices. Validated, written atomically,
// and rewritten with the fields sparehand does not know kept as they were.
import * as z from 'zod/mini';
import { readConfigText, unknownFieldsLine } from './config-file.js';
import { configSchemaId } from './config-schema-id.js';
import type { Context } from './context.js';
import { keepConfigText, keptConfigText } from './config-kept.js';
import { isSparehandError, SparehandError } from './errors.js';
import { writeFileAtomically } from './fs-atomic.js';
import { configPath } from './paths.js';
import { jsonSyntaxError, lineColumn } from './json-error.js';

/** A whole number in a range, saying the range when it is not one (zod/mini's own message is "Invalid input"). */
const intRange = (min: number, max: number) => {
  const error = `a whole number from ${min} to ${max}`;
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }), z.lte(max, { error }));
};

export const WorkerSchema = z
  .object({
    name: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only')),
    /** What ssh is given: `host`, `user@host`, or an alias from ~/.ssh/config (an ssh worker: the default transport). */
    destination: z.optional(z.string().check(z.minLength(1), z.regex(/^[^-\s]/, 'must not start with "-" or a space'))),
    /**
     * An exec worker instead (lib/remote/transport.ts): the program and arguments that run a command, given after
     * them, in the container or pod with its stdin and stdout: `["podman", "exec", "-i", "build"]`.
     */
    exec: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1, 'needs at least the program'))),
    /** A pool instead (lib/remote/pools.ts): the pods the selector matches, each a worker reached by `kubectl exec`. */
    kubernetes: z.optional(
      z.object({
        namespace: z.string().check(z.minLength(1)),
        selector: z.string().check(z.minLength(1)),
        context: z.optional(z.string().check(z.minLength(1))),
        container: z.optional(z.string().check(z.minLength(1))),
      }),
    ),
    port: z.optional(intRange(1, 65535)),
    identity: z.optional(z.string()),
    /** Folder on the worker holding the project copies (default `~/.cache/sparehand/work`). */
    dir: z.optional(z.string()),
    slots: z.optional(intRange(1, 256)),
    /** Let commands on this worker use this machine's ssh agent (off: no agent, X11 or port forwarding, whatever ~/.ssh/config says). */
    forwardAgent: z.optional(z.boolean()),
  })
  .check(
    z.refine((w) => [w.destination, w.exec, w.kubernetes].filter((v) => v !== undefined).length === 1, {
      message: 'a worker needs one of destination (ssh), exec (a container or pod) and kubernetes (a pool of pods)',
    }),
    z.refine(
      (w) => (w.exec === undefined && w.kubernetes === undefined) || (w.port === undefined && w.identity === undefined && w.forwardAgent === undefined),
      { message: "port, identity and forwardAgent are ssh's: an exec worker or a pool has none of them" },
    ),
  );
export type Worker = z.infer<typeof WorkerSchema>;
/** A worker reached with ssh (lib/remote/ssh-args.ts takes only these; lib/remote/transport.ts picks). */
export type SshWorker = Worker & { destination: string };

/**
 * A service the worker starts for each run instead (docs/run.md "Services on the worker"), as CI's service containers
 * are: `start` runs in the copy before the command and is stopped after it; the command reaches it at
 * 127.0.0.1:`port` there, and nothing is forwarded for that port.
 */
export const StartedServiceSchema = z.object({
  /** Its name in sparehand's lines (default: the start command's first word). */
  name: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'letters, digits, spaces, ".", "_" and "-", at most 64'))),
  port: intRange(1, 65535),
  /** A shell command that runs in the foreground until stopped (`redis-server --port 6379 --save ''`). */
  start: z.string().check(z.minLength(1)),
  /** A shell command that succeeds once the service takes requests (besides its port answering): `redis-cli ping`. */
  ready: z.optional(z.string().check(z.minLength(1))),
  /** Seconds it has to get ready (default 30). */
  timeout: z.optional(intRange(1, 600)),
});
export type StartedService = z.infer<typeof StartedServiceSchema>;

/**
 * A service on this machine that commands on a worker reach at 127.0.0.1:PORT there: a port (`5432`, `"6379"`),
 * or `"HOST:PORT"` for one this machine reaches at HOST (`"localhost:8080"`, `"127.0.0.2:5432"`); or one the worker
 * starts for the run (StartedServiceSchema).
 */
export const ServiceSchema = z.union([
  StartedServiceSchema,
  intRange(1, 65535),
  z.string().check(
    z.refine((s) => {
      const m = /^(?:[A-Za-z0-9][A-Za-z0-9.-]*:|\[[0-9A-Fa-f:.]+\]:)?(\d{1,5})$/.exec(s);
      return m !== null && Number(m[1]) >= 1 && Number(m[1]) <= 65535;
    }, 'a port (5432), or "HOST:PORT" ("localhost:8080")'),
  ),
]);
export type Service = z.infer<typeof ServiceSchema>;

const ServicesSchema = z.array(ServiceSchema);
/** Whether the hooks split test commands (`auto`), or not (`off`: the default, and a project's way out of a global `auto`). */
const SplitSchema = z.enum(['auto', 'off']);

export const ConfigSchema = z.object({
  workers: z.optional(z.array(WorkerSchema)),
  /** This machine's services forwarded to every run's worker for its duration (docs/run.md "Services on this machine"). */
  services: z.optional(ServicesSchema),
  /** Settings for one project, by its folder here (the git top level; `~/` is the home folder). */
  projects: z.optional(
    z.record(
      z.string(),
      z.object({
        services: z.optional(ServicesSchema),
        split: z.optional(SplitSchema),
        /** Files held back from the worker for what they hold (a tracked `.npmrc` with an auth token) that are sent anyway: paths from the project's root. */
        sendHeldBack: z.optional(z.array(z.string())),
      }),
    ),
  ),
  /** `"auto"`: the hooks run the test commands that can shard themselves as shards on the free slots (docs/run.md "Split"). */
  split: z.optional(SplitSchema),
  /** Changes to the heavy-command rules: each entry is a command prefix, e.g. "npm run e2e". */
  rules: z.optional(
    z.object({
      heavy: z.optional(z.array(z.string())),
      local: z.optional(z.array(z.string())),
    }),
  ),
  /** Extra environment variable names forwarded to the worker. */
  env: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')))),
  /** Runs here (docs/run.md "Local slots"): how many at once, and how gently. */
  local: z.optional(
    z.object({
      /** How many heavy commands run here at once; the rest queue (0: none queue). Default: fits the machine. */
      slots: z.optional(intRange(0, 256)),
      /** The niceness runs here start with (0: as sparehand's, and no I/O priority change). Default 10. */
      nice: z.optional(intRange(0, 19)),
    }),
  ),
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
type Issue = z.core.$ZodIssue;

/** What was found at `path` in `input`, as people read it: `"22422" (text)`, `0`, `[…] (a list)`. */
function found(input: unknown, path: readonly PropertyKey[]): string | undefined {
  let v = input;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  if (v === undefined) return undefined;
  const kind = typeof v === 'string' ? ' (text)' : Array.isArray(v) ? ' (a list)' : v === null ? '' : typeof v === 'object' ? ' (an object)' : '';
  const text = JSON.stringify(v);
  return `${text.length > 40 ? `${text.slice(0, 37)}…` : text}${kind}`;
}

/** One problem as people read it: zod/mini says only "Invalid input" unless a schema gives its own message. */
function explain(issue: Issue, input: unknown): string {
  const generic = issue.message === 'Invalid input' || issue.message === '';
  const what = !generic
    ? issue.message
    : issue.code === 'invalid_type'
      ? `expected ${issue.expected === 'array' ? 'a list' : issue.expected}`
      : issue.code === 'too_small'
        ? `must be at least ${String(issue.minimum)}`
        : issue.code === 'too_big'
          ? `must be at most ${String(issue.maximum)}`
          : issue.message;
  const got = input === undefined ? undefined : found(input, issue.path);
  return got === undefined ? what : `${what}, got ${got}`;
}

/** Validation problems as one line naming each field (`workers.0.port: …`); `top` names the whole value. */
export function issuesText(issues: readonly Issue[], top: string, input?: unknown): string {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : top}: ${explain(i, input)}`).join('; ');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of `value` that `schema` does not know, as dotted paths (`myNote`, `sync.exclud`, `workers.0.note`). */
function unknownIn(schema: z.core.$ZodType, value: unknown, path: string): string[] {
  const def = schema._zod.def as {
    type: string;
    innerType?: z.core.$ZodType;
    element?: z.core.$ZodType;
    valueType?: z.core.$ZodType;
    shape?: Record<string, z.core.$ZodType>;
  };
  const at = (k: string | number) => (path ? `${path}.${k}` : String(k));
  if (def.innerType) return unknownIn(def.innerType, value, path);
  if (def.type === 'array' && def.element && Array.isArray(value)) return value.flatMap((v, i) => unknownIn(def.element!, v, at(i)));
  if (def.type === 'record' && def.valueType && isObject(value)) return Object.entries(value).flatMap(([k, v]) => unknownIn(def.valueType!, v, at(k)));
  if (def.type === 'object' && def.shape && isObject(value)) {
    const shape = def.shape;
    return Object.entries(value).flatMap(([k, v]) => (Object.hasOwn(shape, k) ? unknownIn(shape[k]!, v, at(k)) : [at(k)]));
  }
  return [];
}

export interface ConfigFile {
  path: string;
  config: Config;
  /** The document as written, with the fields sparehand does not know (kept when it rewrites the file). */
  raw: Record<string, unknown>;
  /** Those fields, as dotted paths. */
  unknown: string[];
}

/** Reads and checks the config file; a missing file is an empty config, a bad one an error naming the file and field. */
export function readConfig(c: Env): ConfigFile {
  const path = configPath(c);
  const text = readConfigText(path);
  if (text === undefined) return { path, config: {}, raw: {}, unknown: [] };
  const file = parseConfigText(path, text);
  const by = configSchemaId();
  keepConfigText(c, path, text, by === undefined ? undefined : { by, config: file.config, unknown: file.unknown });
  return file;
}

/** The config in `text` (the file at `path`), checked; an error naming the file, line and field otherwise. */
function parseConfigText(path: string, text: string): ConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // Every typo is named by line and column (JSON.parse names a position only for some: json-error.ts).
    const at = jsonSyntaxError(text);
    const where = at ? `${path}:${lineColumn(text, at.offset)}` : path;
    throw new SparehandError('CONFIG', `${where}: not valid JSON: ${at?.problem ?? (e as Error).message}`, {
      hint: 'fix the file by hand, or move it away to start from an empty config',
      cause: e,
    });
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success || !isObject(raw)) {
    const problems = parsed.success ? '(top level): expected an object' : issuesText(parsed.error.issues, '(top level)', raw);
    throw new SparehandError('CONFIG', `${path}: ${problems}`, { hint: 'the fields are in `sparehand help config`' });
  }
  return { path, config: parsed.data, raw, unknown: unknownIn(ConfigSchema, raw, '') };
}

/**
 * The config for what must go on when the file is broken (the hook, `run`): with a broken file, `warn` is told the
 * file, line and problem first, and the last config that parsed is used, or the built-in defaults (no workers).
 */
export function loadConfigOrKept(c: Env, warn: (line: string) => void): Config {
  try {
    return loadConfig(c, warn);
  } catch (e) {
    if (!isSparehandError(e) || e.code !== 'CONFIG') throw e;
    const path = configPath(c);
    const kept = keptConfigText(c, path);
    let config: Config | undefined;
    try {
      config = kept === undefined ? undefined : parseConfigText(path, kept.text).config;
    } catch {
      config = undefined;
    }
    warn(`${e.message}; ${config ? `using the last good config (from ${kept!.saved})` : 'using the built-in defaults (no workers)'} until it is fixed`);
    return config ?? {};
  }
}

/** The config; with `warn`, each field sparehand does not know is named (it is ignored, and kept on rewrite). */
export function loadConfig(c: Env, warn?: (line: string) => void): Config {
  const file = readConfig(c);
  if (warn && file.unknown.length > 0) warn(unknownFieldsLine(file.path, file.unknown));
  return file.config;
}

/**
 * Changes the config with `edit` (given the document as written) and saves it atomically: the fields sparehand does
 * not know stay as they were. The result is checked before it is written.
 */
export async function updateConfig(c: Env, edit: (raw: Record<string, unknown>, config: Config) => Record<string, unknown>): Promise<void> {
  const file = readConfig(c);
  const next = edit(structuredClone(file.raw), file.config);
  const parsed = ConfigSchema.safeParse(next);
  if (!parsed.success) throw new SparehandError('USAGE', issuesText(parsed.error.issues, 'config', next));
  await writeFileAtomically(file.path, `${JSON.stringify(next, null, 2)}\n`);
}

/** What is wrong with the config file and what is used meanwhile, in one line; undefined when it reads. */
export function configProblem(c: Env): string | undefined {
  try {
    readConfig(c);
    return undefined;
  } catch (e) {
    if (!isSparehandError(e) || e.code !== 'CONFIG') throw e;
    let problem: string | undefined;
    loadConfigOrKept(c, (line) => {
      problem = line;
    });
    return problem;
  }
}
