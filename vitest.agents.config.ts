import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/agents/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    pool: 'forks',
    // One real CLI at a time: they are heavy and the machine has two cores.
    fileParallelism: false,
  },
});
