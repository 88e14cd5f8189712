import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createMigrator, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { resolveRefund } from '../../../src/platform/refunds/resolve-refund.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Migration 2026-11-28T00-00-00 (who resolved a refund in doubt, when, on what evidence) on
 * refunds written by the schema before it: every old row keeps its state and has no
 * resolution, an old refund in doubt can be resolved, and the previous release's statements
 * (which never name the new columns) keep working during a rolling upgrade.
 */
const BEFORE = '2026-11-24T10-00-00_dedup-key-hash';
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(async (db) => {
    const { error } = await createMigrator(db).migrateTo(BEFORE);
    if (error) throw error;
  });
  await database.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
       raw_body, payload, content_type, headers, request_id, remote_address, signing_key_fingerprint)
     VALUES (9, 'NPPReceivePayment', true, now() - interval '1 day', repeat('a', 64), '\\x7b7d',
       '{}'::jsonb, 'application/json', '{}', 'r', '127.0.0.1', 'fp')`,
  );
  await database.query(
    `INSERT INTO npp_payments (transaction_id, webhook_id, amount, date_time_local, date_time_text,
       source_bsb, source_account_number, received_at)
     VALUES ('N-OLD-9', 9, 90, '2026-11-20 10:00:00', '2026-11-20T10:00:00', '062-000', '12345678',
       now() - interval '1 day')`,
  );
  // The previous release's rows: one in doubt, one refused, one made.
  for (const [reference, state, amount] of [
    ['return-unknown', 'unknown', '30.00'],
    ['return-failed', 'failed', '30.00'],
    ['return-made', 'succeeded', '30.00'],
  ]) {
    await database.query(
      `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event,
         amount, state, requested_at, attempts, dialect)
       VALUES ($1, $2, 'N-OLD-9', 'NPPReceivePayment', $3, $4, now() - interval '1 hour', 4,
         'public')`,
      [`rf-${reference}`, reference, amount, state],
    );
  }
  await migrateToLatest(database.db, createLogger('silent'));
});
afterAll(() => database?.drop());

describe('upgrading refunds written before resolutions were recorded', () => {
  it('when migrated, then every old row keeps its state and has no resolution', async () => {
    const rows = await database.query(
      `SELECT caller_reference, state, attempts, resolved_by, resolved_at, resolution_evidence
         FROM refunds ORDER BY caller_reference`,
    );
    expect(rows).toEqual([
      expect.objectContaining({ caller_reference: 'return-failed', state: 'failed' }),
      expect.objectContaining({ caller_reference: 'return-made', state: 'succeeded' }),
      expect.objectContaining({ caller_reference: 'return-unknown', state: 'unknown' }),
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({
        attempts: 4,
        resolved_by: null,
        resolved_at: null,
        resolution_evidence: null,
      });
    }
  });

  it('when an old refund in doubt is resolved, then the decision is recorded; an old settled one is refused', async () => {
    const deps = {
      db: withProviderTables(database.db),
      logger: createLogger('silent'),
      now: () => new Date(),
    };
    const resolution = { outcome: 'not-paid', by: 'Ada', evidence: 'platform ticket 42' } as const;
    expect(
      await resolveRefund(deps, { ...resolution, callerReference: 'return-made' }),
    ).toMatchObject({ resolved: false });
    const done = await resolveRefund(deps, { ...resolution, callerReference: 'return-unknown' });
    expect(done).toMatchObject({
      resolved: true,
      refund: { state: 'failed', resolved_by: 'Ada', resolution_evidence: 'platform ticket 42' },
    });
  });

  it('when the previous release writes a refund its way, then its statements still work', async () => {
    await database.query(
      `INSERT INTO refunds (unique_reference, transaction_id, payment_event, amount, state,
         requested_at)
       VALUES ('rfrolling0000000', 'N-OLD-9', 'NPPReceivePayment', 0.01, 'pending', now())`,
    );
    await database.query(
      `UPDATE refunds SET state = 'succeeded', completed_at = now(), attempts = attempts + 1
        WHERE unique_reference = 'rfrolling0000000'`,
    );
    const [row] = await database.query<{ state: string; resolved_by: string | null }>(
      "SELECT state, resolved_by FROM refunds WHERE unique_reference = 'rfrolling0000000'",
    );
    expect(row).toEqual({ state: 'succeeded', resolved_by: null });
  });
});
