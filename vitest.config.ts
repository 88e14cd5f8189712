import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'scripts/**/*.test.ts', 'tools/**/*.test.ts'],
    // One embedded Postgres (or the machine's, via TEST_DATABASE_URL) is started once for the run;
    // each integration test file creates its own database inside it.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
