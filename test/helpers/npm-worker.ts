// A worker for the dependency tests: an npm registry on 127.0.0.1 serving test/fixtures/npm/, a real sshd whose user
// is the worker's ordinary owner, and a HOME using it (as README's Quick start adds it), whose runs forward the
// registry to npm on the worker.
import { type NpmRegistry, startNpmRegistry } from './npm-registry.js';
import { type Sshd, startSshd } from './sshd.js';
import { type WorkerHome, workerHome } from './worker-env.js';
import { workerOwnerHome } from './worker-home.js';

export interface NpmWorker {
  registry: NpmRegistry;
  sshd: Sshd;
  wh: WorkerHome;
  /** The environment of a run: the HOME's, with the registry. */
  env: NodeJS.ProcessEnv;
  stop: () => Promise<void>;
}

export async function startNpmWorker(extra: { slots?: number } = {}): Promise<NpmWorker> {
  const registry = await startNpmRegistry();
  const sshd = await startSshd({ home: workerOwnerHome() });
  const wh = workerHome([sshd], { ...extra, env: ['npm_config_update_notifier', 'npm_config_registry'] });
  const stop = async () => {
    await wh.close();
    await sshd.stop();
    await registry.stop();
  };
  return { registry, sshd, wh, env: { ...wh.env, npm_config_registry: registry.url }, stop };
}
