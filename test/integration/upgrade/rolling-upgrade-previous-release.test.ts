import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.ts';
import { assertMigrated, migrateToLatest } from '../../../src/lib/database/migrator.ts';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.ts';

/**
 * The rolling-upgrade rule (docs/operations.md): a migration keeps the previous release working,
 * because during a roll, and after a code rollback, the previous release's instances run against
 * the schema the new release migrated. So the previous landed release's statements (commit
 * dce3aa1), vendored below as fixed text exactly as that release compiled and sent them (its
 * store statement's prepared text; Kysely's compiled INSERTs), are run against a database
 * migrated to the latest schema, with parameters in that release's format.
 *
 * Fixed text, never regenerated from today's code: when a migration breaks one, fix the migration
 * (a default, a nullable column, a trigger), not this file. When a release lands, replace these
 * with that release's statements.
 */

const PREVIOUS_RELEASE = 'dce3aa1';

/** dce3aa1 src/receiver/storage/store-deliveries.ts STORE_STATEMENT ('store-deliveries-v1'), 4 parameters. */
const PREVIOUS_STORE_STATEMENT = `
    WITH incoming AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(
        position int, webhook_id bigint, event_name text, modelled boolean,
        received_at timestamptz, body_sha256 text, raw_body_base64 text, payload jsonb,
        content_type text, headers jsonb, request_id text, remote_address text,
        signing_key_fingerprint text, warnings jsonb)
    ),
    delivery AS (
      INSERT INTO webhook_deliveries (webhook_id, event_name, modelled, received_at, body_sha256,
        raw_body, payload, content_type, headers, request_id, remote_address,
        signing_key_fingerprint, warnings)
      SELECT webhook_id, event_name, modelled, received_at, body_sha256,
        decode(raw_body_base64, 'base64'), payload, content_type, headers, request_id,
        remote_address, signing_key_fingerprint, warnings
      FROM incoming ORDER BY position
      ON CONFLICT DO NOTHING
      RETURNING webhook_id, body_sha256, event_name, modelled
    ),
    pay_in AS (
    SELECT x.position, x.record_index, x.event_name,
      jsonb_populate_record(NULL::npp_payments, x.row) AS r
    FROM jsonb_to_recordset($2::jsonb) AS x(position int, webhook_id bigint,
      body_sha256 text, event_name text, record_index int, row jsonb)
    JOIN delivery USING (webhook_id, body_sha256)
  ),
  pay_ins AS (
    INSERT INTO npp_payments SELECT (r).* FROM pay_in ORDER BY position
    ON CONFLICT DO NOTHING
    RETURNING transaction_id, webhook_id
  ),
  pay_seen AS (
    SELECT i.position, i.record_index, i.event_name, i.r,
      first_value(i.position) OVER k AS first_position,
      first_value(i.r) OVER k AS first_r,
      s.webhook_id AS stored_webhook_id,
      CASE WHEN s.webhook_id IS NOT NULL THEN to_jsonb(s) END AS stored_json,
      w.transaction_id IS NOT NULL AS won
    FROM pay_in i
    LEFT JOIN npp_payments s ON s.transaction_id = (i.r).transaction_id
    LEFT JOIN pay_ins w ON w.transaction_id = (i.r).transaction_id
    WINDOW k AS (PARTITION BY (i.r).transaction_id ORDER BY i.position)
  ),
  pay_conflict AS (
    INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
      record_index, differences)
    SELECT 'npp_payments', c.event_name, (c.r).transaction_id, c.first_webhook_id,
      (c.r).webhook_id, c.record_index, c.differences
    FROM (
      SELECT q.*, typed_row_differences(q.first_json, to_jsonb(q.r)) AS differences
      FROM (
        SELECT seen.*,
          CASE WHEN stored_webhook_id IS NOT NULL THEN stored_json
            WHEN won AND position <> first_position THEN to_jsonb(first_r) END AS first_json,
          coalesce(stored_webhook_id, (first_r).webhook_id) AS first_webhook_id
        FROM pay_seen seen
      ) q
      WHERE q.first_json IS NOT NULL) c
    WHERE c.differences IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING id, webhook_id, event_name, business_key
  ),
    payto_in AS (
    SELECT x.position, x.record_index, x.event_name,
      jsonb_populate_record(NULL::payto_payments, x.row) AS r
    FROM jsonb_to_recordset($3::jsonb) AS x(position int, webhook_id bigint,
      body_sha256 text, event_name text, record_index int, row jsonb)
    JOIN delivery USING (webhook_id, body_sha256)
  ),
  payto_ins AS (
    INSERT INTO payto_payments SELECT (r).* FROM payto_in ORDER BY position
    ON CONFLICT DO NOTHING
    RETURNING transaction_id, webhook_id
  ),
  payto_seen AS (
    SELECT i.position, i.record_index, i.event_name, i.r,
      first_value(i.position) OVER k AS first_position,
      first_value(i.r) OVER k AS first_r,
      s.webhook_id AS stored_webhook_id,
      CASE WHEN s.webhook_id IS NOT NULL THEN to_jsonb(s) END AS stored_json,
      w.transaction_id IS NOT NULL AS won
    FROM payto_in i
    LEFT JOIN payto_payments s ON s.transaction_id = (i.r).transaction_id
    LEFT JOIN payto_ins w ON w.transaction_id = (i.r).transaction_id
    WINDOW k AS (PARTITION BY (i.r).transaction_id ORDER BY i.position)
  ),
  payto_conflict AS (
    INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
      record_index, differences)
    SELECT 'payto_payments', c.event_name, (c.r).transaction_id, c.first_webhook_id,
      (c.r).webhook_id, c.record_index, c.differences
    FROM (
      SELECT q.*, typed_row_differences(q.first_json, to_jsonb(q.r)) AS differences
      FROM (
        SELECT seen.*,
          CASE WHEN stored_webhook_id IS NOT NULL THEN stored_json
            WHEN won AND position <> first_position THEN to_jsonb(first_r) END AS first_json,
          coalesce(stored_webhook_id, (first_r).webhook_id) AS first_webhook_id
        FROM payto_seen seen
      ) q
      WHERE q.first_json IS NOT NULL) c
    WHERE c.differences IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING id, webhook_id, event_name, business_key
  ),
    rej_in AS (
    SELECT x.position, x.record_index, x.event_name,
      jsonb_populate_record(NULL::credit_rejections, x.row) AS r
    FROM jsonb_to_recordset($4::jsonb) AS x(position int, webhook_id bigint,
      body_sha256 text, event_name text, record_index int, row jsonb)
    JOIN delivery USING (webhook_id, body_sha256)
  ),
  rej_ins AS (
    INSERT INTO credit_rejections SELECT (r).* FROM rej_in ORDER BY position
    ON CONFLICT DO NOTHING
    RETURNING event_name, rejection_id, webhook_id
  ),
  rej_seen AS (
    SELECT i.position, i.record_index, i.event_name, i.r,
      first_value(i.position) OVER k AS first_position,
      first_value(i.r) OVER k AS first_r,
      s.webhook_id AS stored_webhook_id,
      CASE WHEN s.webhook_id IS NOT NULL THEN to_jsonb(s) END AS stored_json,
      w.event_name IS NOT NULL AS won
    FROM rej_in i
    LEFT JOIN credit_rejections s ON s.event_name = (i.r).event_name AND s.rejection_id = (i.r).rejection_id
    LEFT JOIN rej_ins w ON w.event_name = (i.r).event_name AND w.rejection_id = (i.r).rejection_id
    WINDOW k AS (PARTITION BY (i.r).event_name, (i.r).rejection_id ORDER BY i.position)
  ),
  rej_conflict AS (
    INSERT INTO conflicts (table_name, event_name, business_key, first_webhook_id, webhook_id,
      record_index, differences)
    SELECT 'credit_rejections', c.event_name, (c.r).rejection_id, c.first_webhook_id,
      (c.r).webhook_id, c.record_index, c.differences
    FROM (
      SELECT q.*, typed_row_differences(q.first_json, to_jsonb(q.r)) AS differences
      FROM (
        SELECT seen.*,
          CASE WHEN stored_webhook_id IS NOT NULL THEN stored_json
            WHEN won AND position <> first_position THEN to_jsonb(first_r) END AS first_json,
          coalesce(stored_webhook_id, (first_r).webhook_id) AS first_webhook_id
        FROM rej_seen seen
      ) q
      WHERE q.first_json IS NOT NULL) c
    WHERE c.differences IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING id, webhook_id, event_name, business_key
  ),
    feed_outbox AS (
      INSERT INTO feed_events (type, event_name, business_key, webhook_id, conflict_id)
      SELECT type, event_name, business_key, webhook_id, conflict_id
      FROM (SELECT 0 AS source, 'payment.received' AS type, 'NPPReceivePayment' AS event_name, (transaction_id)::text AS business_key, webhook_id AS webhook_id, NULL::bigint AS conflict_id FROM pay_ins UNION ALL SELECT 1 AS source, 'payto_payment.received' AS type, 'PayToReceivePayment' AS event_name, (transaction_id)::text AS business_key, webhook_id AS webhook_id, NULL::bigint AS conflict_id FROM payto_ins UNION ALL SELECT 2 AS source, 'credit_rejection.received' AS type, event_name AS event_name, (rejection_id)::text AS business_key, webhook_id AS webhook_id, NULL::bigint AS conflict_id FROM rej_ins UNION ALL SELECT 3 AS source, 'event.unmodelled' AS type, event_name AS event_name, (webhook_id)::text AS business_key, webhook_id AS webhook_id, NULL::bigint AS conflict_id FROM delivery WHERE NOT modelled UNION ALL SELECT 4 AS source, 'conflict.detected' AS type, event_name AS event_name, (business_key)::text AS business_key, webhook_id AS webhook_id, id::bigint AS conflict_id FROM pay_conflict UNION ALL SELECT 5 AS source, 'conflict.detected' AS type, event_name AS event_name, (business_key)::text AS business_key, webhook_id AS webhook_id, id::bigint AS conflict_id FROM payto_conflict UNION ALL SELECT 6 AS source, 'conflict.detected' AS type, event_name AS event_name, (business_key)::text AS business_key, webhook_id AS webhook_id, id::bigint AS conflict_id FROM rej_conflict) AS e
      ORDER BY source, webhook_id, business_key
    ),
    tally (webhook_id, inserted, unresolved, conflicts) AS (
      SELECT (r).webhook_id, (won AND position = first_position)::int,
      (stored_webhook_id IS NULL AND NOT won)::int, 0 FROM pay_seen
    UNION ALL SELECT webhook_id, 0, 0, 1 FROM pay_conflict UNION ALL SELECT (r).webhook_id, (won AND position = first_position)::int,
      (stored_webhook_id IS NULL AND NOT won)::int, 0 FROM payto_seen
    UNION ALL SELECT webhook_id, 0, 0, 1 FROM payto_conflict UNION ALL SELECT (r).webhook_id, (won AND position = first_position)::int,
      (stored_webhook_id IS NULL AND NOT won)::int, 0 FROM rej_seen
    UNION ALL SELECT webhook_id, 0, 0, 1 FROM rej_conflict
    )
    SELECT delivery.webhook_id::text AS webhook_id, delivery.body_sha256,
      coalesce(sum(tally.inserted), 0)::int AS typed,
      coalesce(sum(tally.unresolved), 0)::int AS unresolved,
      coalesce(sum(tally.conflicts), 0)::int AS conflicts
    FROM delivery LEFT JOIN tally USING (webhook_id)
    GROUP BY delivery.webhook_id, delivery.body_sha256
  `;

/** dce3aa1 src/platform/refunds/refunds-repository.ts insertPendingRefund: no caller reference, no dialect. */
const PREVIOUS_REFUND_INSERT =
  'insert into "refunds" ("unique_reference", "transaction_id", "payment_event", "amount", "description", "refund_reference", "requested_at", "state") values ($1, $2, $3, $4, $5, $6, $7, $8) returning *';

/** dce3aa1 src/receiver/storage/quarantine-repository.ts quarantineDelivery. */
const PREVIOUS_QUARANTINE_INSERT =
  'insert into "quarantined_deliveries" ("event_name", "webhook_id_header", "webhook_id", "received_at", "body_sha256", "raw_body", "content_type", "headers", "reasons", "request_id", "remote_address", "signing_key_fingerprint") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict do nothing returning "id"';

/** dce3aa1 src/platform/recovery/run-recovery.ts: one row per run, written when it ends. */
const PREVIOUS_RECOVERY_RUN_INSERT =
  'insert into "recovery_runs" ("started_at", "finished_at", "days", "ok", "summary") values ($1, $2, $3, $4, $5)';

/** dce3aa1 src/platform/recovery/attempts-repository.ts record(). */
const PREVIOUS_RECOVERY_ATTEMPT_INSERT =
  'insert into "recovery_attempts" ("webhook_id", "event_name", "report_day", "reason", "attempted_at", "outcome", "http_status", "provider_status", "description") values ($1, $2, $3, $4, $5, $6, $7, $8, $9)';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

let nextWebhookId = BigInt(Date.now()) * 1000n;
const webhookId = () => (nextWebhookId += 1n).toString();

interface Delivery {
  webhookId: string;
  eventName: string;
  modelled: boolean;
  body: Record<string, unknown> | unknown[];
  receivedAt: string;
  sha256: string;
}

function delivery(eventName: string, body: Delivery['body'], modelled = true): Delivery {
  const bytes = JSON.stringify(body);
  return {
    webhookId: webhookId(),
    eventName,
    modelled,
    body,
    receivedAt: new Date().toISOString(),
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** The previous release's first parameter: its deliveriesJson() format. */
function deliveriesParameter(deliveries: Delivery[]): string {
  return JSON.stringify(
    deliveries.map((d, position) => ({
      position,
      webhook_id: d.webhookId,
      event_name: d.eventName,
      modelled: d.modelled,
      received_at: d.receivedAt,
      body_sha256: d.sha256,
      raw_body_base64: Buffer.from(JSON.stringify(d.body)).toString('base64'),
      payload: d.body,
      content_type: 'application/json',
      headers: { 'content-type': 'application/json', webhookid: d.webhookId },
      request_id: `req-${d.webhookId}`,
      remote_address: '127.0.0.1',
      signing_key_fingerprint: 'a'.repeat(64),
      warnings: [],
    })),
    // It wrote the Webhookid as a bare JSON number (exact: Postgres reads it as numeric).
  ).replace(/"webhook_id":"(\d+)"/g, '"webhook_id":$1');
}

/** The previous release's typed-row parameters: its typedItemJson() format, columns snake_case. */
function typedParameter(rows: { delivery: Delivery; row: Record<string, unknown> }[]): string {
  return JSON.stringify(
    rows.map(({ delivery: d, row }, position) => ({
      position,
      webhook_id: d.webhookId,
      body_sha256: d.sha256,
      event_name: d.eventName,
      record_index: 0,
      row: { webhook_id: d.webhookId, event_name: d.eventName, received_at: d.receivedAt, ...row },
    })),
  );
}

/** An NPPReceivePayment typed row as the previous release's model produced it. */
function paymentRow(transactionId: string, amount: string): Record<string, unknown> {
  return {
    transaction_id: transactionId,
    amount,
    date_time_local: '2026-11-22 10:15:00',
    date_time_text: '2026-11-22T10:15:00',
    end_to_end_id: `E2E${transactionId}`,
    receipt_number: null,
    pay_id: 'payments@example.com.au',
    pay_id_name: 'Example Pty Ltd',
    remitter_name: 'Jane Citizen',
    bsb: '802-985',
    account_number: '123456789',
    account_name: 'Example Pty Ltd',
    source_bsb: '062-000',
    source_account_number: '12345678',
    source_account_name: 'J Citizen',
    remittance_information: 'Invoice 42',
    creditor_reference_information: null,
    reconciliation_rule_reference: null,
    category_purpose_code: null,
    ultimate_creditor_name: null,
    usi_number: null,
    usi_creditor_scheme: null,
    ledger_account_number: null,
    ledger_unique_reference: null,
    refund_inbound_amount: null,
    refund_amount: null,
    refund_id: null,
  };
}

async function previousStore(parameters: {
  deliveries: Delivery[];
  payments?: { delivery: Delivery; row: Record<string, unknown> }[];
  rejections?: { delivery: Delivery; row: Record<string, unknown> }[];
}) {
  return database.query<{ webhook_id: string; typed: number; conflicts: number }>(
    PREVIOUS_STORE_STATEMENT,
    [
      deliveriesParameter(parameters.deliveries),
      typedParameter(parameters.payments ?? []),
      '[]',
      typedParameter(parameters.rejections ?? []),
    ],
  );
}

async function feedEventsOf(webhookIdText: string) {
  return database.query<{ type: string; event_name: string; business_key: string }>(
    'SELECT type, event_name, business_key FROM feed_events WHERE webhook_id = $1 ORDER BY id',
    [webhookIdText],
  );
}

describe(`the previous release (${PREVIOUS_RELEASE}) against the latest schema`, () => {
  it('when it stores a payment, a rejection and an unmodelled event with its store statement, then each delivery, typed row and feed event is written', async () => {
    const transactionId = `ROLL${randomBytes(4).toString('hex').toUpperCase()}`;
    const pay = delivery('NPPReceivePayment', { TransactionId: transactionId, Amount: 12.5 });
    const rejectionId = `RJ${randomBytes(4).toString('hex')}`;
    const rejected = delivery('NPPCreditRejections', [{ id: rejectionId, amount: 3 }]);
    const unmodelled = delivery('NppReturn', { Something: 'else' }, false);

    const answer = await previousStore({
      deliveries: [pay, rejected, unmodelled],
      payments: [{ delivery: pay, row: paymentRow(transactionId, '12.5') }],
      rejections: [
        {
          delivery: rejected,
          row: { rejection_id: rejectionId, amount: '3', rejection_reason: 'Account closed' },
        },
      ],
    });

    expect(answer.map((row) => [row.webhook_id, row.typed, row.conflicts]).sort()).toEqual(
      [
        [pay.webhookId, 1, 0],
        [rejected.webhookId, 1, 0],
        [unmodelled.webhookId, 0, 0],
      ].sort(),
    );
    const [stored] = await database.query<{
      event_name: string;
      payload: unknown;
      warnings: unknown;
    }>('SELECT event_name, payload, warnings FROM webhook_deliveries WHERE webhook_id = $1', [
      pay.webhookId,
    ]);
    expect(stored).toEqual({
      event_name: 'NPPReceivePayment',
      payload: { TransactionId: transactionId, Amount: 12.5 },
      warnings: [],
    });
    const [payment] = await database.query<{ amount: string; source_bsb: string }>(
      'SELECT amount, source_bsb FROM npp_payments WHERE transaction_id = $1',
      [transactionId],
    );
    expect(payment).toEqual({ amount: '12.5', source_bsb: '062-000' });
    expect(
      await database.query(
        'SELECT rejection_reason FROM credit_rejections WHERE rejection_id = $1',
        [rejectionId],
      ),
    ).toEqual([{ rejection_reason: 'Account closed' }]);
    expect(await feedEventsOf(pay.webhookId)).toEqual([
      { type: 'payment.received', event_name: 'NPPReceivePayment', business_key: transactionId },
    ]);
    expect(await feedEventsOf(rejected.webhookId)).toEqual([
      {
        type: 'credit_rejection.received',
        event_name: 'NPPCreditRejections',
        business_key: rejectionId,
      },
    ]);
    expect(await feedEventsOf(unmodelled.webhookId)).toEqual([
      { type: 'event.unmodelled', event_name: 'NppReturn', business_key: unmodelled.webhookId },
    ]);
    // The same delivery again (the platform's retry): nothing new.
    expect(
      await previousStore({
        deliveries: [pay],
        payments: [{ delivery: pay, row: paymentRow(transactionId, '12.5') }],
      }),
    ).toEqual([]);
  });

  it('when it stores a payment whose key is already stored with another amount, then the conflict and its feed event are written', async () => {
    const transactionId = `ROLL${randomBytes(4).toString('hex').toUpperCase()}`;
    const first = delivery('NPPReceivePayment', { TransactionId: transactionId, Amount: 10 });
    const second = delivery('NPPReceivePayment', { TransactionId: transactionId, Amount: 11 });
    await previousStore({
      deliveries: [first],
      payments: [{ delivery: first, row: paymentRow(transactionId, '10') }],
    });
    const answer = await previousStore({
      deliveries: [second],
      payments: [{ delivery: second, row: paymentRow(transactionId, '11') }],
    });
    expect(answer).toEqual([
      {
        webhook_id: second.webhookId,
        body_sha256: second.sha256,
        typed: 0,
        unresolved: 0,
        conflicts: 1,
      },
    ]);
    expect(
      await database.query(
        'SELECT first_webhook_id::text, differences FROM conflicts WHERE webhook_id = $1',
        [second.webhookId],
      ),
    ).toEqual([
      {
        first_webhook_id: first.webhookId,
        differences: [{ field: 'amount', first: 10, second: 11 }],
      },
    ]);
    expect((await feedEventsOf(second.webhookId)).map((e) => e.type)).toEqual([
      'conflict.detected',
    ]);
  });

  it('when it quarantines a refused delivery, then the row is kept (open: no handling yet)', async () => {
    const header = 'not-a-number';
    const values = [
      'NPPReceivePayment',
      header,
      null,
      new Date(),
      'b'.repeat(64),
      Buffer.from('{"Amount": 1}'),
      'application/json',
      JSON.stringify({ webhookid: header }),
      JSON.stringify([{ path: 'Webhookid', message: 'must be digits' }]),
      'req-q',
      '127.0.0.1',
      'a'.repeat(64),
    ];
    const [kept] = await database.query<{ id: string }>(PREVIOUS_QUARANTINE_INSERT, values);
    expect(kept?.id).toBeDefined();
    // Its retry: kept once.
    expect(await database.query(PREVIOUS_QUARANTINE_INSERT, values)).toEqual([]);
    expect(
      await database.query(
        'SELECT handled_at, handling FROM quarantined_deliveries WHERE id = $1',
        [kept?.id],
      ),
    ).toEqual([{ handled_at: null, handling: null }]);
  });

  it('when its recovery records a run and a resend, then both rows are written', async () => {
    const now = new Date();
    await database.query(PREVIOUS_RECOVERY_RUN_INSERT, [
      new Date(now.getTime() - 1000),
      now,
      ['2026-11-22', '2026-11-23'],
      true,
      JSON.stringify({ ok: true }),
    ]);
    await database.query(PREVIOUS_RECOVERY_ATTEMPT_INSERT, [
      webhookId(),
      'NPPReceivePayment',
      '2026-11-23',
      'missing',
      now,
      'resent',
      200,
      'Ok',
      null,
    ]);
    expect(await database.count('recovery_runs')).toBe(1);
    expect(await database.count('recovery_attempts')).toBe(1);
  });

  it('when it reserves a refund without a caller reference (the column it does not know is NOT NULL now), then the row is written with its nonce as caller reference', async () => {
    const nonce = `rf${randomBytes(16).toString('hex')}`;
    const [row] = await database.query<{ caller_reference: string; state: string }>(
      PREVIOUS_REFUND_INSERT,
      [nonce, 'ROLLREFUND1', 'NPPReceivePayment', '1.00', null, null, new Date(), 'pending'],
    );
    expect(row).toMatchObject({ caller_reference: nonce, state: 'pending' });
  });
});

describe('instances on a schema a newer release migrated', () => {
  it('when a newer release has migrated, then this one starts on that schema whether it migrates on start or only checks (rolling upgrades, rollbacks)', async () => {
    const next = '2099-01-01T00-00-00_next-release';
    await database.query('INSERT INTO kysely_migration (name, timestamp) VALUES ($1, $2)', [
      next,
      new Date().toISOString(),
    ]);
    try {
      await expect(assertMigrated(database.db)).resolves.toBeUndefined();
      // What MIGRATE_ON_START=true does: every migration it knows is applied, so nothing to do
      // (the previous release, dce3aa1, refused here with "corrupted migrations": it migrated
      // on every start through Kysely, which refuses an unknown applied migration).
      await expect(migrateToLatest(database.db, createLogger('silent'))).resolves.toBeUndefined();
    } finally {
      await database.query('DELETE FROM kysely_migration WHERE name = $1', [next]);
    }
  });
});
