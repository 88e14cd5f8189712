import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPED_TABLES } from '../../../src/receiver/contract.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * docs/retention.md says how to size the tables by hand ("Measuring it again"): its query sums
 * every table a delivery leaves rows in. It finds the ledger's typed tables by their columns, so
 * an event type with a table of its own is sized without a change to the doc: run here on the
 * migrated schema, it must size every typed table of the registry.
 */

const DOC = readFileSync(path.resolve(import.meta.dirname, '../../../docs/retention.md'), 'utf8');

/** The SQL block of the doc that sizes the tables (the one with pg_total_relation_size). */
function sizingQuery(): string {
  const blocks = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const sizing = blocks.filter((block) => block.includes('pg_total_relation_size'));
  expect(sizing, 'exactly one sizing query in docs/retention.md').toHaveLength(1);
  return sizing[0] ?? '';
}

describe('retention documentation', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it('when the sizing query of docs/retention.md runs on the migrated schema, then it sizes every typed table of the registry and the tables a delivery always writes', async () => {
    const rows = await testDb.query<{ table: string }>(sizingQuery());
    const sized = rows.map((row) => row.table);
    for (const { table } of TYPED_TABLES) {
      expect(sized, `the sizing query leaves out ${table}`).toContain(table);
    }
    for (const table of [
      'webhook_deliveries',
      'feed_events',
      'direct_credit_batches',
      'conflicts',
    ]) {
      expect(sized).toContain(table);
    }
    expect(sized.at(-1)).toBe('total');
  });
});
