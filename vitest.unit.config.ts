// `npm run test:unit`: the inner loop (CONTRIBUTING.md). Every test file that starts no sshd and no container (none
// that uses test/helpers/sshd.ts, worker-env.ts or container.ts, itself or through a test file it imports), and not
// the few that run whole programs many times over (SLOW below): those run in `npm test`. Found from the files'
// imports at each run, so a new worker test is left out without a list to keep.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Files that take many seconds each on two cores: a copy of the repository tested whole, real bash or a real hook
 * process per case, an apply killed at each of its calls. */
const SLOW = [
  'test/agents/add-a-tool.test.ts',
  'test/agents/fuzz.test.ts',
  'test/classify/means-the-same.property.test.ts',
  'test/classify/quoting.property.test.ts',
  'test/classify/split.property.test.ts',
  'test/commands/agent-test.test.ts',
  'test/hook/in-process.test.ts',
  'test/hook/process.test.ts',
  'test/scripts/build.test.ts',
  'test/sync/apply-crash.test.ts',
];

const WORKER = /helpers\/(sshd|worker-env|container|podman-first|venv-worker)\.js['"]/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || p === join(ROOT, 'test', 'e2e', 'agents') ? [] : testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Whether `file`, or a test file it imports, starts a worker. */
function needsWorker(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (WORKER.test(text)) return true;
  return [...text.matchAll(/from '(\.[^']+\.test)\.js'|import '(\.[^']+\.test)\.js'/g)].some((m) =>
    needsWorker(resolve(dirname(file), `${m[1] ?? m[2]}.ts`), seen),
  );
}

const unit = testFiles(join(ROOT, 'test'))
  .filter((f) => !needsWorker(f))
  .map((f) => relative(ROOT, f))
  .filter((f) => !SLOW.includes(f));

export default defineConfig({
  ...base,
  test: { ...base.test, include: unit },
});
