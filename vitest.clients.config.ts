// `npm run test:clients`: clients generated from the served OpenAPI document (TypeScript and Python)
// run the documented scripts against a real `media-index serve`. The Python generator is installed
// from PyPI into a cache folder by test-clients/setup.ts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test-clients/**/*.test.ts'],
    globalSetup: ['test/helpers/leftovers.ts', 'test-clients/setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
