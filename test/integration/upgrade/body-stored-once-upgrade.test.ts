import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignPositions } from '../../../src/feed/assigner.ts';
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
 * The body is stored once from 2026-11-24T09 on. Rows the previous release wrote (bytes and a
 * jsonb copy) keep both and read the same through the `feed` view; rows written after it have
 * no copy and read their body from the bytes; a body jsonb cannot hold reads null, never an error.
 */
const BODY_ONCE = '2026-11-24T09-00-00_body-stored-once';
let database: TestDatabase;
const oldId = freshWebhookId();
const oddId = freshWebhookId();
const oddBody = '{"Note":"a\\u0000b"}';

beforeAll(async () => {
  database = await createTestDatabase(migratedUpToBefore(BODY_ONCE));
  // As the previous release wrote them: bytes and the jsonb copy (none when jsonb refused it).
  for (const [webhookId, body, payload] of [
    [oldId, '{ "Note": "old",  "Amount": 1.50 }', '{"Note": "old", "Amount": 1.50}'],
    [oddId, oddBody, null],
  ] as const) {
    await database.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
         raw_body, payload, content_type, headers)
       VALUES ($1, 'NppReturn', false, now(), $2, $3, $4, 'application/json', '{}')`,
      [webhookId, createHash('sha256').update(body).digest('hex'), Buffer.from(body), payload],
    );
    await database.query(
      `INSERT INTO feed_events (type, event_name, business_key, webhook_id)
       VALUES ('event.unmodelled', 'NppReturn', $1::text, $1::bigint)`,
      [webhookId],
    );
  }
  const { error } = await createMigrator(database.db).migrateToLatest();
  if (error) throw error;
});
afterAll(() => database?.drop());

describe('upgrading to the body stored once (2026-11-24T09-00-00)', () => {
  it('when the previous release wrote a delivery, then its bytes and jsonb copy are untouched and the feed view reads the copy', async () => {
    const new_ = deliveryItem({ body: '{"Note":"new","Amount":2.50}' });
    await storeDeliveries(database.db, [new_]);
    await assignPositions(database.db);
    const rows = await database.query<{ webhook_id: string; payload: unknown; stored: unknown }>(
      `SELECT f.webhook_id::text, f.payload, d.payload AS stored
       FROM feed f JOIN webhook_deliveries d USING (webhook_id) ORDER BY f.position`,
    );
    expect(rows).toEqual([
      {
        webhook_id: oldId,
        payload: { Note: 'old', Amount: 1.5 },
        stored: { Note: 'old', Amount: 1.5 },
      },
      { webhook_id: oddId, payload: null, stored: null },
      { webhook_id: new_.delivery.webhookId, payload: { Note: 'new', Amount: 2.5 }, stored: null },
    ]);
    const [odd] = await database.query<{ raw_body: Buffer }>(
      'SELECT raw_body FROM webhook_deliveries WHERE webhook_id = $1',
      [oddId],
    );
    expect(odd?.raw_body.toString()).toBe(oddBody);
  });

  it('when a body is not UTF-8, starts with a byte-order mark or is not JSON, then delivery_body_json answers without raising', async () => {
    const rows = await database.query<{ bad: unknown; bom: unknown; text: unknown }>(
      `SELECT delivery_body_json('\\xff7b7d'::bytea) AS bad,
              delivery_body_json('\\xefbbbf7b2261223a317d'::bytea) AS bom,
              delivery_body_json(convert_to('not json', 'UTF8')) AS text`,
    );
    expect(rows).toEqual([{ bad: null, bom: { a: 1 }, text: null }]);
  });
});
