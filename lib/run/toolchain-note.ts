// A run on a worker whose toolchain for the command differs from this machine's (node 18 there, 20 here) says so
// once: the versions are asked at most once a day per worker and toolchain (alongside a run, over the shared
// connection), kept in the state folder, and a difference is told once until the versions change.
import { join } from 'node:path';
import type { Worker } from '../config.js';
import type { Context } from '../context.js';
import { stateDir } from '../paths.js';
import { workerVersions } from '../remote/versions.js';
import { versionsHere } from '../toolchain/local.js';
import { TOOLCHAINS, type Toolchain, significant, versionIn } from '../toolchain/table.js';
import { type Said, readOwnJson, writeOwnFile } from '../state/own-file.js';

const DAY_MS = 86_400_000;

interface Known {
  here: string | null;
  worker: string | null;
  at: number;
  /** The difference was told (for these two versions). */
  told?: boolean;
}
type Store = Record<string, Record<string, Known>>;

const storePath = (c: Pick<Context, 'home' | 'env'>) => join(stateDir(c), 'toolchains.json');

function load(c: Pick<Context, 'home' | 'env'> & Said): Store {
  const v = readOwnJson(c, storePath(c));
  return v && typeof v === 'object' ? (v as Store) : {};
}

/** The toolchains the command's programs run on (`npm test` → node; `./gradlew` → java). */
export function toolchainsFor(programs: readonly string[]): Toolchain[] {
  return TOOLCHAINS.filter((t) => programs.some((p) => t.programs.includes(p) || t.programs.includes(p.split('/').at(-1) ?? p)));
}

/**
 * Starts asking for the versions that are not known (or are a day old) and returns a function that, after the
 * run, says what differs, once. Never fails the run: a probe that fails is forgotten.
 */
export function toolchainNote(ctx: Context, worker: Worker, programs: readonly string[]): () => Promise<string[]> {
  const wanted = toolchainsFor(programs);
  if (wanted.length === 0) return async () => [];
  const store = load(ctx);
  const mine = (store[worker.name] ??= {});
  const stale = wanted.filter((t) => !mine[t.id] || Date.now() - (mine[t.id]?.at ?? 0) > DAY_MS);
  const commands = stale.map((t) => t.version);
  const asked = stale.length === 0 ? undefined : Promise.all([versionsHere(ctx.env, commands), workerVersions(ctx, worker, commands)]).catch(() => undefined);
  return async () => {
    const answers = await asked;
    for (const t of stale) {
      if (!answers) break;
      const here = versionIn(answers[0].get(t.version) ?? '') ?? null;
      const there = versionIn(answers[1][t.version] ?? '') ?? null;
      const before = mine[t.id];
      const same = before && before.here === here && before.worker === there;
      mine[t.id] = { here, worker: there, at: Date.now(), ...(same && before.told ? { told: true } : {}) };
    }
    const lines: string[] = [];
    for (const t of wanted) {
      const k = mine[t.id];
      if (!k || k.told || !k.here || !k.worker || significant(k.here, t.parts) === significant(k.worker, t.parts)) continue;
      lines.push(
        `note: ${worker.name} has ${t.id} ${k.worker}, here ${k.here}; the command ran there with it (\`sparehand doctor\` in the project compares its toolchains)`,
      );
      k.told = true;
    }
    if (answers || lines.length > 0) {
      writeOwnFile(ctx, storePath(ctx), `${JSON.stringify(store, null, 2)}\n`);
    }
    return lines;
  };
}
