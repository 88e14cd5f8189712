import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { ROW_TABLES } from '../../src/capture/expected-answer.ts';
import { generateSigningKeyPair, type SigningKeyPair } from './signing.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

/**
 * Every table a delivery can write: the captured-fixture format's tables, the direct-credit
 * tables (not in that format), the feed's outbox and each endpoint's delivery state and attempts.
 */
const STORED_TABLES = [
  ...ROW_TABLES,
  'direct_credits',
  'direct_credit_batches',
  'feed_events',
  'feed_endpoint_events',
  'feed_attempts',
] as const;

/**
 * The feed's endpoints as the migration leaves them: only `configured`, enabled, not paused,
 * its cursor at the start (positions start again at 1 once feed_events is emptied).
 */
const RESET_ENDPOINTS = `
  DELETE FROM feed_endpoints WHERE declared_by = 'operator';
  UPDATE feed_endpoints SET fanned_through = 0, enabled = true, paused = false, paused_reason = NULL`;

export interface Testbed {
  readonly database: TestDatabase;
  /** The platform's key pair: the app trusts its public half, tests sign with its private half. */
  readonly signer: SigningKeyPair;
  /** Asserts that none of the stored tables holds a row. */
  expectNothingStored(): Promise<void>;
}

/**
 * The usual integration-test file: its own database (made once, emptied before each test) and a
 * signing key pair. Call at the top level of a test file.
 */
export function useTestbed(): Testbed {
  let database: TestDatabase | undefined;
  let signer: SigningKeyPair | undefined;
  beforeAll(async () => {
    [database, signer] = await Promise.all([createTestDatabase(), generateSigningKeyPair()]);
  });
  afterAll(() => database?.drop());
  beforeEach(async () => {
    await ready(database).query(`TRUNCATE ${STORED_TABLES.join(', ')}`);
    await ready(database).query(RESET_ENDPOINTS);
  });

  return {
    get database() {
      return ready(database);
    },
    get signer() {
      return ready(signer);
    },
    async expectNothingStored() {
      for (const table of STORED_TABLES) expect(await ready(database).count(table), table).toBe(0);
    },
  };
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('testbed used outside a test (before beforeAll ran)');
  return value;
}
