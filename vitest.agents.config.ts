import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/agents/**/*.test.ts'],
    // A run with no CLI to test fails instead of passing with every test skipped.
    globalSetup: ['test/e2e/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // One real CLI at a time: they are heavy and the machine has two cores.
    fileParallelism: false,
  },
});
