import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code, so it means the same thing forever.
// Requires PostgreSQL 15 or later (UNIQUE NULLS NOT DISTINCT).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('webhook_id', 'bigint', (c) => c.primaryKey())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('modelled', 'boolean', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('body_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('raw_body', 'bytea', (c) => c.notNull())
    // Null only when the body holds text Postgres cannot keep in jsonb (NUL, lone surrogates);
    // raw_body always has the exact bytes.
    .addColumn('payload', 'jsonb')
    .addColumn('content_type', 'text')
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('remote_address', 'text')
    .addColumn('signing_key_fingerprint', 'text')
    .addCheckConstraint('webhook_deliveries_sha256_hex', sql`body_sha256 ~ '^[0-9a-f]{64}$'`)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event_received')
    .on('webhook_deliveries')
    .columns(['event_name', 'received_at'])
    .execute();

  await db.schema
    .createTable('npp_payments')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'bigint', (c) =>
      c.notNull().references('webhook_deliveries.webhook_id'),
    )
    .addColumn('end_to_end_id', 'text')
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('date_time_local', 'timestamp')
    .addColumn('date_time_text', 'text')
    .addColumn('receipt_number', 'text')
    .addColumn('pay_id', 'text')
    .addColumn('remitter_name', 'text')
    .addColumn('bsb', 'text')
    .addColumn('account_number', 'text')
    .addColumn('remittance_information', 'text')
    .addColumn('refund_inbound_amount', 'numeric')
    .addColumn('refund_amount', 'numeric')
    .addColumn('refund_id', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('npp_payments_webhook_id')
    .on('npp_payments')
    .column('webhook_id')
    .execute();

  await db.schema
    .createTable('credit_rejections')
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('rejection_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'bigint', (c) =>
      c.notNull().references('webhook_deliveries.webhook_id'),
    )
    .addColumn('batch_id', 'text')
    .addColumn('date_time_local', 'timestamp')
    .addColumn('date_time_text', 'text')
    .addColumn('transaction_type', 'text')
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('bsb', 'text')
    .addColumn('account_number', 'text')
    .addColumn('account_name', 'text')
    .addColumn('reference', 'text')
    .addColumn('remitter_name', 'text')
    .addColumn('rejection_reason', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('credit_rejections_pkey', ['event_name', 'rejection_id'])
    .execute();
  await db.schema
    .createIndex('credit_rejections_webhook_id')
    .on('credit_rejections')
    .column('webhook_id')
    .execute();

  await db.schema
    .createTable('quarantined_deliveries')
    .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('event_name', 'text', (c) => c.notNull())
    // The header exactly as sent (it may be what was malformed); webhook_id when it parsed.
    .addColumn('webhook_id_header', 'text')
    .addColumn('webhook_id', 'bigint')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('body_sha256', 'text', (c) => c.notNull())
    .addColumn('raw_body', 'bytea', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('reasons', 'jsonb', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('remote_address', 'text')
    .addColumn('signing_key_fingerprint', 'text')
    .execute();
  // The same refused delivery sent again is kept once.
  await sql`
    ALTER TABLE quarantined_deliveries
    ADD CONSTRAINT quarantined_deliveries_once
    UNIQUE NULLS NOT DISTINCT (event_name, webhook_id_header, body_sha256)
  `.execute(db);
  await db.schema
    .createIndex('quarantined_deliveries_received')
    .on('quarantined_deliveries')
    .column('received_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('quarantined_deliveries').execute();
  await db.schema.dropTable('credit_rejections').execute();
  await db.schema.dropTable('npp_payments').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
}
