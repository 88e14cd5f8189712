import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The product's tests, and each tool's beside it; the benchmark harness's own tests run in
    // `npm run test:bench` (tools/bench/vitest.config.ts).
    include: ['test/**/*.test.ts', 'tools/**/test/**/*.test.ts'],
    exclude: ['tools/bench/**', '**/node_modules/**'],
    // One embedded Postgres (or the machine's, via TEST_DATABASE_URL) is started once for the run;
    // each integration test file creates its own database inside it.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
