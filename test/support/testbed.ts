import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { ROW_TABLES } from '../../src/capture/expected-answer.ts';
import { generateSigningKeyPair, type SigningKeyPair } from './signing.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

/**
 * Every table a delivery can write: the captured-fixture format's tables, the direct-credit
 * tables (not in that format) and the feed's outbox.
 */
const STORED_TABLES = [
  ...ROW_TABLES,
  'direct_credits',
  'direct_credit_batches',
  'feed_events',
] as const;

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
  beforeEach(() => ready(database).query(`TRUNCATE ${STORED_TABLES.join(', ')}`));

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
