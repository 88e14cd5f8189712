import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database, type Db } from '../../../src/lib/database/database.ts';
import { findStoredDelivery } from '../../../src/receiver/storage/deliveries-repository.ts';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import { storeDeliveries } from '../../../src/receiver/storage/store-deliveries.ts';
import { freshWebhookId } from '../../support/deliveries.ts';
import { deliveryItem } from '../../support/delivery-items.ts';
import {
  createTestDatabase,
  migratedUpToBefore,
  type TestDatabase,
} from '../../support/test-database.ts';

/**
 * Migration 2026-11-24T10-00-00 enforces "the same bytes once per event" with an exclusion
 * constraint over a hash index instead of a unique B-tree (a fraction of the WAL on a large
 * table). Rows stored before it are still the ones a later copy collides with, copies are still
 * refused when two writers race, and the look-up by body still reads an index, not the table.
 */
const DEDUP_HASH = '2026-11-24T10-00-00_dedup-key-hash';
let database: TestDatabase;
const oldBody = '{"Note":"stored by the previous release"}';
const oldId = freshWebhookId();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  database = await createTestDatabase(migratedUpToBefore(DEDUP_HASH));
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, content_type, headers)
     VALUES ($1, 'NppReturn', false, now(), $2, $3, 'application/json', '{}')`,
    [oldId, sha256(oldBody), Buffer.from(oldBody)],
  );
  // Enough rows that reading the whole table would cost more than an index.
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, content_type, headers)
     SELECT 9000000000 + i, 'NppReturn', false, now(), encode(sha256(int8send(i)), 'hex'),
       int8send(i), 'application/json', '{}'
     FROM generate_series(1, 20000) i`,
  );
  const { error } = await createMigrator(database.db).migrateToLatest();
  if (error) throw error;
  await database.query('ANALYZE webhook_deliveries');
});
afterAll(() => database?.drop());

describe('the deduplication key as a hash exclusion constraint (2026-11-24T10-00-00)', () => {
  it('when a body stored before the migration comes again under a new Webhookid, then it is not stored twice; for another event it is', async () => {
    const again = deliveryItem({ body: oldBody });
    again.delivery.eventName = 'NppReturn';
    const other = deliveryItem({ body: oldBody });
    other.delivery.eventName = 'NppPaymentStatus';
    const outcomes = await storeDeliveries(database.db, [again, other]);
    expect(outcomes.map((o) => o.inserted)).toEqual([false, true]);
    const rows = await database.query<{ webhook_id: string; event_name: string }>(
      `SELECT webhook_id::text, event_name FROM webhook_deliveries WHERE body_sha256 = $1
       ORDER BY event_name`,
      [sha256(oldBody)],
    );
    expect(rows).toEqual([
      { webhook_id: other.delivery.webhookId, event_name: 'NppPaymentStatus' },
      { webhook_id: oldId, event_name: 'NppReturn' },
    ]);
  });

  it('when two writers store the same body under two Webhookids at the same moment, then exactly one row is kept', async () => {
    const body = `{"Race":"${freshWebhookId()}"}`;
    const writers: Db[] = [0, 1].map(() => createDatabase({ url: database.url, poolMax: 1 }));
    try {
      for (let round = 0; round < 5; round += 1) {
        const text = body.replace('}', `,"Round":${round}}`);
        const outcomes = await Promise.all(
          writers.map((db) => storeDeliveries(db, [deliveryItem({ body: text })])),
        );
        expect(outcomes.flat().filter((o) => o.inserted)).toHaveLength(1);
        const [count] = await database.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM webhook_deliveries WHERE body_sha256 = $1',
          [sha256(text)],
        );
        expect(count?.n).toBe('1');
      }
    } finally {
      await Promise.all(writers.map((db) => db.destroy()));
    }
  });

  it('when a delivery is looked up by its body, then the constraint’s hash index answers, not a read of the table', async () => {
    // The statement findStoredDelivery sends, captured as it runs, then planned.
    const statements: { sql: string; parameters: readonly unknown[] }[] = [];
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const logged = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        statements.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    try {
      const found = await findStoredDelivery(logged, freshWebhookId(), {
        eventName: 'NppReturn',
        bodySha256: sha256(oldBody),
      });
      expect(found).toEqual({
        webhookId: oldId,
        eventName: 'NppReturn',
        bodySha256: sha256(oldBody),
      });
    } finally {
      await logged.destroy();
    }
    expect(statements).toHaveLength(1);
    const plan = await database.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statements[0]!.sql}`, [
      ...statements[0]!.parameters,
    ]);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('webhook_deliveries_event_body_once');
    expect(text).not.toMatch(/Seq Scan on webhook_deliveries/);
  });
});
