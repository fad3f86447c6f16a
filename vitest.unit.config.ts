import { defineConfig } from 'vitest/config';

// The unit tier: `*.spec.ts` beside the code, no server, no indexer processes; `npm test` runs it first.
export default defineConfig({
  test: {
    include: ['server/**/*.spec.ts', 'renderer/**/*.spec.ts', 'main/**/*.spec.ts'],
    globalSetup: ['test/helpers/leftovers.ts'],
    pool: 'threads',
    maxWorkers: 2,
  },
});
