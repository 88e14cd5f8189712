import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigrator } from '../../../src/lib/database/migrator.ts';
import {
  createTestDatabase,
  migratedUpToBefore,
  type TestDatabase,
} from '../../support/test-database.ts';

/**
 * Rows written by the previous version survive the retention migration exactly as they were
 * (it only relaxes NOT NULL, adds a marker column and indexes), and from then on a raw body may
 * be null only once its delivery is pruned.
 */
const RETENTION = '2026-11-24T06-00-00_retention';
let database: TestDatabase;
let before: Record<string, unknown[]>;

/** Every row of the tables the migration touches or the prune reads, in a stable order. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables = {
    webhook_deliveries: 'webhook_id',
    npp_payments: 'transaction_id',
    feed_events: 'id',
    quarantined_deliveries: 'id',
    recovery_attempts: 'id',
    recovery_runs: 'id',
    recovery_row_problems: 'id',
    conflicts: 'id',
  };
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(tables)) {
    const rows = await database.query<{ row: Record<string, unknown> }>(
      `SELECT to_jsonb(t) - 'pruned_at' AS row FROM ${table} t ORDER BY ${key}`,
    );
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

beforeAll(async () => {
  database = await createTestDatabase(migratedUpToBefore(RETENTION));
  // As the previous version wrote them: a delivery with its payment and event, one whose body
  // jsonb could not hold (payload null), a body large enough to be stored out of line, an old one.
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, payload, content_type, headers, request_id, remote_address,
       signing_key_fingerprint, warnings)
     VALUES
       (1, 'NPPReceivePayment', true, now() - interval '200 days', repeat('a', 64),
        convert_to('{"TransactionId":"T1","RemitterName":"JANE CITIZEN"}', 'UTF8'),
        '{"TransactionId":"T1","RemitterName":"JANE CITIZEN"}', 'application/json',
        '{"webhookid":"1","verification-signature":"c2ln"}', 'r1', '203.0.113.9', 'fp',
        '[{"path":"PayId","message":"stored as null"}]'),
       (2, 'NppReturn', false, now() - interval '1 day', repeat('b', 64),
        convert_to('{"n":"\\u0000"}', 'UTF8'), NULL,
        'application/json', '{}', NULL, NULL, NULL, '[]'),
       (3, 'NppReturn', false, now(), repeat('c', 64),
        convert_to('{"pad":"' || repeat(md5(random()::text), 400) || '"}', 'UTF8'),
        NULL, 'application/json', '{}', NULL, NULL, NULL, '[]')`,
  );
  await database.query(
    `INSERT INTO npp_payments (transaction_id, webhook_id, amount, remitter_name,
       source_account_number, received_at)
     VALUES ('T1', 1, 10.5, 'JANE CITIZEN', '12345678', now() - interval '200 days')`,
  );
  await database.query(
    `INSERT INTO feed_events (position, type, event_name, business_key, webhook_id, relay_state,
       attempts, sent_at)
     VALUES (1, 'payment.received', 'NPPReceivePayment', 'T1', 1, 'sent', 1,
       now() - interval '199 days')`,
  );
  await database.query(
    `INSERT INTO quarantined_deliveries (event_name, webhook_id_header, received_at, body_sha256,
       raw_body, headers, reasons, handled_at, handling, handled_note)
     VALUES ('NPPReceivePayment', '9', now() - interval '200 days', repeat('d', 64), 'x', '{"a":"b"}',
       '[]', now() - interval '150 days', 'marked', 'done'),
       ('NPPReceivePayment', '10', now() - interval '200 days', repeat('e', 64), 'y', '{}', '[]',
       NULL, NULL, NULL)`,
  );
  await database.query(
    `INSERT INTO recovery_attempts (webhook_id, report_day, reason, attempted_at, outcome)
     VALUES (7, '2026-01-01', 'missing', now() - interval '200 days', 'failed')`,
  );
  await database.query(
    `INSERT INTO recovery_runs (started_at, finished_at, days, ok, summary, holder)
     VALUES (now() - interval '200 days', now() - interval '200 days', '{2026-01-01}', true, '{}', 'h')`,
  );
  before = await snapshot();
  const { error } = await createMigrator(database.db).migrateTo(RETENTION);
  if (error) throw error;
});
afterAll(() => database?.drop());

describe('upgrading to the retention migration', () => {
  it('when migrated, then every row written before is unchanged and none is marked pruned', async () => {
    expect(await snapshot()).toEqual(before);
    const marked = await database.query(
      `SELECT webhook_id FROM webhook_deliveries WHERE pruned_at IS NOT NULL
       UNION ALL SELECT id FROM quarantined_deliveries WHERE pruned_at IS NOT NULL`,
    );
    expect(marked).toEqual([]);
  });

  it('when a delivery is written without raw body or headers and not marked pruned, then the database refuses it', async () => {
    const insert = (rawBody: string | null, headers: string | null, pruned: boolean) =>
      database.query(
        `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at,
           body_sha256, raw_body, payload, headers, pruned_at)
         VALUES ((random() * 1e15)::bigint + 1000, 'NppReturn', false, now(),
           md5(random()::text) || md5(random()::text), $1::bytea, NULL, $2::jsonb,
           CASE WHEN $3 THEN now() END)`,
        [rawBody, headers, pruned],
      );
    await expect(insert(null, '{}', false)).rejects.toMatchObject({ code: '23514' });
    await expect(insert('x', null, false)).rejects.toMatchObject({ code: '23514' });
    await expect(insert(null, null, true)).resolves.toBeDefined();
  });

  it('when a delivery has been pruned, then migrating back down is refused (its raw request is gone)', async () => {
    await database.query(`DELETE FROM webhook_deliveries WHERE pruned_at IS NOT NULL`);
    // Pruned as the release of this migration pruned it: today's steps read tables of later
    // migrations (prune_sent_feed_events() of 2026-11-28T02, feed_endpoint_events of
    // 2026-11-29T01), which this database stops before.
    await database.query(
      `UPDATE webhook_deliveries SET raw_body = NULL, headers = NULL, payload = NULL,
         pruned_at = now() WHERE webhook_id = 1`,
    );
    const [row] = await database.query<{ raw_body: Buffer | null }>(
      'SELECT raw_body FROM webhook_deliveries WHERE webhook_id = 1',
    );
    expect(row?.raw_body).toBeNull();
    const migrator = createMigrator(database.db);
    const { error } = await migrator.migrateDown();
    expect(String(error)).toMatch(/contains null values/);
    // Nothing was undone: the migration is still applied.
    const applied = (await migrator.getMigrations()).find((m) => m.name === RETENTION);
    expect(applied?.executedAt).toBeDefined();
  });
});
