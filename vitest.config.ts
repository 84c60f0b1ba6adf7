import { defineConfig } from 'vitest/config';

// The container-worker suites need rootful podman (a rootless podman keeps its containers under the real HOME, which
// every test replaces): as an ordinary user they are left out, with a line (README "Developing").
const ROOTFUL = ['test/run/*-podman.test.ts', 'test/run/exec-worker.test.ts'];
const root = process.getuid?.() === 0;
if (!root && !process.env.VITEST_WORKER_ID) console.log(`not run as an ordinary user (they need rootful podman, as root): ${ROOTFUL.join(', ')}`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real coding-tool CLIs run in their own suite: `npm run test:agents`.
    exclude: ['test/e2e/agents/**', 'node_modules/**', ...(root ? [] : ROOTFUL)],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most test files wait on ssh, rsync and sleeps rather than compute: more at once than the cores (vitest's
    // default, cores - 1, ran one file at a time on two cores: 1,120 s).
    maxWorkers: 3,
  },
});
