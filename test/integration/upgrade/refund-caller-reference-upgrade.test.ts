import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { createProviderClient } from '../../../src/platform/client/provider-client.ts';
import { refundStoredPayment } from '../../../src/platform/refunds/refund-stored-payment.ts';
import { withProviderTables } from '../../../src/platform/storage/tables.ts';
import { createMigrator, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * Refunds recorded by the previous version (no caller reference) survive the upgrade: each
 * takes its platform nonce as its caller reference, so an operator can name an unknown one to
 * resume it, and its reserved amount still counts against a new refund.
 */
const BEFORE = '2026-11-22T04-00-00_recovery-and-refunds';
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
     VALUES ('N-OLD-9', 9, 40, '2026-11-20 10:00:00', '2026-11-20T10:00:00', '062-000', '12345678',
       now() - interval '1 day')`,
  );
  // The previous version's INSERT: a refund whose outcome it never learned, and one that failed.
  for (const [reference, state, amount] of [
    ['rf0123456789abcdef0123456789abcdef', 'unknown', '30.00'],
    ['rffedcba9876543210fedcba9876543210', 'failed', '40.00'],
  ]) {
    await database.query(
      `INSERT INTO refunds (unique_reference, transaction_id, payment_event, amount, state,
         requested_at, attempts)
       VALUES ($1, 'N-OLD-9', 'NPPReceivePayment', $2, $3, now() - interval '1 hour', 4)`,
      [reference, amount, state],
    );
  }
  await migrateToLatest(database.db, createLogger('silent'));
});
afterAll(() => database?.drop());

describe('upgrading refunds written by the previous version', () => {
  it('when migrated, then every refund has its nonce as caller reference and no dialect', async () => {
    const rows = await database.query<{ caller_reference: string; unique_reference: string }>(
      'SELECT caller_reference, unique_reference, dialect FROM refunds ORDER BY unique_reference',
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ caller_reference: row.unique_reference, dialect: null });
    }
  });

  it('when a new refund would need the amount an old unknown refund reserves, then it is refused before sending', async () => {
    let calls = 0;
    const client = createProviderClient({
      baseUrl: 'http://127.0.0.1:9',
      authUrl: 'http://127.0.0.1:9',
      apiKey: 'k',
      mAccount: undefined,
      timeoutMs: 100,
      fetch: () => {
        calls += 1;
        return Promise.reject(new TypeError('no platform in this test'));
      },
    });
    const deps = {
      db: withProviderTables(database.db),
      client,
      logger: createLogger('silent'),
      now: () => new Date(),
    };
    await expect(
      refundStoredPayment(deps, {
        transactionId: 'N-OLD-9',
        callerReference: 'return-new',
        amount: '10.01',
      }),
    ).rejects.toMatchObject({
      kind: 'invalid-request',
      fieldErrors: [{ path: 'amount', message: expect.stringContaining('rf0123456789abcdef') }],
    });
    // The failed one answers its recorded refusal under its old reference; nothing is sent.
    await expect(
      refundStoredPayment(deps, {
        transactionId: 'N-OLD-9',
        callerReference: 'rffedcba9876543210fedcba9876543210',
      }),
    ).rejects.toMatchObject({ kind: 'http', attempts: 0 });
    expect(calls).toBe(0);
    expect(await database.count('refunds')).toBe(2);
  });

  it('when the previous release (still running during a rolling upgrade) inserts a refund its way, then the row gets its nonce as caller reference', async () => {
    await database.query(
      `INSERT INTO refunds (unique_reference, transaction_id, payment_event, amount, state,
         requested_at)
       VALUES ('rfrolling0000000', 'N-OLD-9', 'NPPReceivePayment', 0.01, 'pending', now())`,
    );
    const [row] = await database.query<{ caller_reference: string }>(
      "SELECT caller_reference FROM refunds WHERE unique_reference = 'rfrolling0000000'",
    );
    expect(row?.caller_reference).toBe('rfrolling0000000');
    await database.query("DELETE FROM refunds WHERE unique_reference = 'rfrolling0000000'");
  });

  it('when the caller reference is unique, then a second row under it cannot be written', async () => {
    await expect(
      database.query(
        `INSERT INTO refunds (unique_reference, caller_reference, transaction_id, payment_event,
           amount, state, requested_at)
         VALUES ('rfother000000', 'rf0123456789abcdef0123456789abcdef', 'N-OLD-9',
           'NPPReceivePayment', 1, 'pending', now())`,
      ),
    ).rejects.toThrow(/refunds_caller_reference/);
  });
});
