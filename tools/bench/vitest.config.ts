import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:bench`: the benchmark harness's own tests, kept out of `npm test` (which is the
 * product's tests). They need no database.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['tools/bench/test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
