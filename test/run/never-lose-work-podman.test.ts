// Every attack on the sync back (never-lose-work.test.ts) again, with the worker a podman container reached by the
// exec transport (`podman exec -i`): the never-lose-work guarantees hold on every transport (issue 29).
import '../helpers/podman-first.js';
import { w } from './never-lose-work.test.js';
import { expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

it('the worker in this file is the container, over exec', () => {
  const config = JSON.parse(readFileSync(join(w.wh.home, '.config', 'sparehand', 'config.json'), 'utf8'));
  expect(config.workers[0].exec.slice(0, 3)).toEqual(['podman', 'exec', '-i']);
});
