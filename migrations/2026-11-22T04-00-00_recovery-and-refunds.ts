import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
//
// Recovery (resends asked of the platform, and its runs), PayTo receipts the webhooks missed,
// and refunds of stored payments. Every table here is written by the provider client's side of
// the service, never by the receiving pipeline.

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per resend asked for (or refused): what, when, the answer. Recovery reads it to
  // space attempts out and to give up after a few, so it never resends in a loop.
  await db.schema
    .createTable('recovery_attempts')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('webhook_id', 'bigint', (c) => c.notNull())
    .addColumn('event_name', 'text')
    // The Sydney day of the delivery report that listed it.
    .addColumn('report_day', 'date', (c) => c.notNull())
    // 'error': the platform gave up on it; 'missing': reported sent but not stored here.
    .addColumn('reason', 'text', (c) => c.notNull().check(sql`reason IN ('error', 'missing')`))
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome IN ('resent', 'failed')`))
    .addColumn('http_status', 'integer')
    .addColumn('provider_status', 'text')
    .addColumn('description', 'text')
    .execute();
  await db.schema
    .createIndex('recovery_attempts_webhook')
    .on('recovery_attempts')
    .columns(['webhook_id', 'attempted_at'])
    .execute();

  await db.schema
    .createTable('recovery_runs')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz', (c) => c.notNull())
    // Sydney days examined.
    .addColumn('days', sql`date[]`, (c) => c.notNull())
    // Every report was read and every resend asked for was accepted.
    .addColumn('ok', 'boolean', (c) => c.notNull())
    .addColumn('summary', 'jsonb', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recovery_runs_finished')
    .on('recovery_runs')
    .column('finished_at')
    .execute();

  // PayTo receipts in the platform's report with no stored PayToReceivePayment: what the
  // webhooks missed, for an operator. Resolved when the notification arrives after all.
  await db.schema
    .createTable('payto_unmatched_receipts')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('report_day', 'date', (c) => c.notNull())
    .addColumn('amount', 'numeric')
    // Sydney wall-clock time as the report shows it (no zone).
    .addColumn('date_time_text', 'text')
    // Every column of the report row, by its header name, as sent.
    .addColumn('report_row', 'jsonb', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .execute();
  await sql`
    CREATE INDEX payto_unmatched_receipts_open ON payto_unmatched_receipts (report_day)
    WHERE resolved_at IS NULL
  `.execute(db);

  // Refunds of stored payments. The row (and its unique_reference, the platform's nonce) is
  // written before the first call, so every retry sends the same reference and a refund can
  // never happen twice. 'unknown': no answer; the amount stays reserved until it is resumed.
  await db.schema
    .createTable('refunds')
    .addColumn('unique_reference', 'text', (c) => c.primaryKey())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('payment_event', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state IN ('pending', 'succeeded', 'failed', 'unknown')`),
    )
    .addColumn('description', 'text')
    .addColumn('refund_reference', 'text')
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refund_transaction_id', 'text')
    .addColumn('fee_amount_excluding_gst', 'numeric')
    .addColumn('fee_amount_including_gst', 'numeric')
    .addColumn('fee_amount_gst_component', 'numeric')
    .addColumn('http_status', 'integer')
    .addColumn('provider_status', 'text')
    .addColumn('status_description', 'text')
    .execute();
  await db.schema
    .createIndex('refunds_transaction')
    .on('refunds')
    .column('transaction_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('refunds').execute();
  await db.schema.dropTable('payto_unmatched_receipts').execute();
  await db.schema.dropTable('recovery_runs').execute();
  await db.schema.dropTable('recovery_attempts').execute();
}
