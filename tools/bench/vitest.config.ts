import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:bench`: the benchmark harness's own tests, kept out of `npm test` (which is the
 * product's tests). The seeding test (test/seed-2m.test.ts) needs the machine's Postgres and
 * psql, as the bench does: BENCH_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['tools/bench/test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
