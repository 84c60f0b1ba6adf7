// Every warm-run test (warm-send.test.ts) again with the watcher turned off (SPAREHAND_WATCH=off): the fingerprint
// then comes from a look at every file, as on a Mac or wherever no watcher can run, and must miss nothing either.
import '../helpers/watch-off-first.js';
import { shared } from './warm-send.test.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { gitProject } from '../helpers/project.js';
import { sparehand } from '../helpers/cli.js';

it('starts no watcher in this file', async () => {
  const proj = gitProject({ 'a.txt': 'a\n' });
  for (let i = 0; i < 2; i++) expect((await sparehand(['run', '--', 'true'], { env: shared.wh.env, cwd: proj })).exitCode).toBe(0);
  expect(shared.wh.env.SPAREHAND_WATCH).toBe('off');
  expect(existsSync(join(proj, '.sparehand', 'watch'))).toBe(false);
});
