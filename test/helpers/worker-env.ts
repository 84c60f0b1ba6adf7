// A test HOME that trusts a test sshd, with a sparehand config naming it as a worker.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeConnections } from '../../lib/remote/connection.js';
import type { Config } from '../../lib/config.js';
import { clientId, projectKey } from '../../lib/run/project.js';
import { tempDir } from './context.js';
import { afterAll, beforeAll } from 'vitest';
import { type Sshd, startSshd, trustHostKey } from './sshd.js';
import { containerWorker, startContainer } from './container.js';

export interface WorkerHome {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Stops the shared ssh connections this HOME opened. */
  close: () => Promise<void>;
}

/**
 * `workers` become config entries `w0`, `w1`, … added as README's Quick start adds one: the sshd's destination
 * (an ordinary user), its port and identity, and no --dir (the copies go to `~/.cache/sparehand/work` there). Homes on
 * one sshd share that folder, as machines sharing a worker do; `dir` gives this home's workers a folder of their own,
 * `~/DIR` on the worker (`workerFolder` names it here; the slot count a worker keeps is its folder's: the first run's
 * config writes it).
 */
export function workerHome(sshds: readonly Sshd[], extra: Partial<Config> & { slots?: number; dir?: string } = {}): WorkerHome {
  const home = tempDir('sparehand-home-');
  for (const s of sshds) trustHostKey(home, s);
  const { slots, dir, ...rest } = extra;
  const config: Config = {
    workers: sshds.map((s, i) => ({
      name: `w${i}`,
      destination: s.destination,
      port: s.port,
      identity: s.identity,
      ...(dir ? { dir: `~/${dir}` } : {}),
      ...(slots ? { slots } : {}),
    })),
    env: ['npm_config_update_notifier'],
    ...rest,
  };
  mkdirSync(join(home, '.config', 'sparehand'), { recursive: true });
  writeFileSync(join(home, '.config', 'sparehand', 'config.json'), JSON.stringify(config, null, 2));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_update_notifier: 'false',
    // A test file that turns the watcher off (watch-off-first.ts) turns it off for every run it makes.
    ...(process.env.SPAREHAND_WATCH ? { SPAREHAND_WATCH: process.env.SPAREHAND_WATCH } : {}),
  };
  return { home, env, close: () => closeConnections({ home, env }) };
}

/**
 * HOMEs a test file makes as it goes (`home([sshd], extra)`, as workerHome), each with its connections closed by
 * `closeAll` (in the file's afterAll).
 */
export function workerHomes(): { home: typeof workerHome; closeAll: () => Promise<void> } {
  const made: WorkerHome[] = [];
  return {
    home: (sshds, extra) => {
      const wh = workerHome(sshds, extra);
      made.push(wh);
      return wh;
    },
    closeAll: async () => {
      for (const wh of made.splice(0)) await wh.close();
    },
  };
}

/**
 * One test sshd and a HOME using it as worker `w0`, for a whole test file (started once, stopped after); in a file
 * that imports podman-first.ts, a container reached by `podman exec -i` instead (its `sshd` has only `remoteDir`
 * and `stop`).
 */
export function sharedWorker(): { readonly sshd: Sshd; readonly wh: WorkerHome } {
  const state: { sshd?: Sshd; wh?: WorkerHome } = {};
  beforeAll(async () => {
    if (containerWorker()) {
      const c = startContainer();
      state.sshd = {
        port: 0,
        dir: c.remoteDir,
        knownHostsLine: '',
        identity: '',
        user: 'root',
        destination: '',
        home: c.remoteDir,
        remoteDir: c.remoteDir,
        stop: c.stop,
      };
      state.wh = workerHome([], { workers: [{ name: 'w0', exec: c.exec, dir: c.remoteDir }] });
      return;
    }
    state.sshd = await startSshd();
    state.wh = workerHome([state.sshd]);
  });
  afterAll(async () => {
    await state.wh?.close();
    await state.sshd?.stop();
  });
  return {
    get sshd() {
      return state.sshd as Sshd;
    },
    get wh() {
      return state.wh as WorkerHome;
    },
  };
}

/** The worker folder (here, on the test sshd) that `workerHome([sshd], { dir })` gives its workers: `~/DIR` there. */
export function workerFolder(sshd: Pick<Sshd, 'home'>, dir: string): string {
  return join(sshd.home, dir);
}

/** The worker folder of `proj`'s copy `folder` for runs from `wh` (its client id, made by its first run). */
export function copyPath(wh: Pick<WorkerHome, 'home' | 'env'>, remoteDir: string, proj: string, folder = 0): string {
  return join(remoteDir, projectKey(proj, clientId({ home: wh.home, env: wh.env }, proj)), String(folder));
}
