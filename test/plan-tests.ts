/**
 * The plan tests: each seeds a table with hundreds of thousands of rows and reads Postgres's
 * plan (EXPLAIN) of the statements an operator or the service runs on it. Slow (tens of seconds
 * each), so they are a lane of their own (`npm run test:plans`; vitest project `plans`);
 * `npm test` runs both lanes.
 */
export const PLAN_TESTS = [
  'test/integration/feed/feed-stats-cost.test.ts',
  'test/integration/operations/money-states-cost.test.ts',
  'test/integration/receiver/merchant-queries.test.ts',
  'test/integration/retention/retention-plans.test.ts',
];
